"""A small, seeded grammar of English→Chinese sentence pairs (a synthetic corpus).

Every pair is built from word tables and one small function per construction, so the
Chinese is a deterministic function of the English. The constructions are the lesson's
phenomena: word order (time and place move before the Chinese verb), relative clauses
(which move before their noun with 的), questions, coreference that Chinese resolves by
repeating the antecedent, word senses decided by context, and a long-range "秋蝉 … 它们"
dependency whose distance is a parameter. Sentences are padded with clauses joined by
and / but / because / so to reach an exact source length, from 1 to 55 tokens and beyond.

Randomness only comes from the ``random.Random`` passed in (or seeded here), so the same
seed gives the same corpus on every machine.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import random
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

# ---------------------------------------------------------------------------------------
# Public records
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pair:
    """One English→Chinese sentence pair of word tokens."""

    src: tuple[str, ...]  # English tokens, lower case, no punctuation
    tgt: tuple[str, ...]  # Chinese word tokens (the UI joins them without spaces)
    kind: str  # the phenomenon: "lesson", "simple", "reorder", "relative", ...
    check: tuple[tuple[int, str], ...] = ()  # (index into tgt, expected token) for probes
    info: tuple[tuple[str, str], ...] = ()  # free metadata, e.g. (("distance", "23"),)


@dataclass(frozen=True)
class Splits:
    """Train / dev / test sets; no source sentence is shared between them."""

    train: tuple[Pair, ...]
    dev: tuple[Pair, ...]
    test: tuple[Pair, ...]


KINDS: tuple[str, ...] = (
    "lesson",
    "simple",
    "reorder",
    "relative",
    "question",
    "coref",
    "sense",
    "longrange",
    "compound",
    "short",
)
BUCKETS: tuple[str, ...] = ("1-10", "11-20", "21-30", "31-40", "41+")
_BUCKET_RANGES: tuple[tuple[int, int], ...] = ((1, 10), (11, 20), (21, 30), (31, 40), (41, 55))
MAX_LEN = 55  # default longest source sentence


def length_bucket(n_src_tokens: int) -> str:
    """The BUCKETS label of a source length: 1-10, 11-20, 21-30, 31-40, 41+."""
    if n_src_tokens <= 10:
        return "1-10"
    if n_src_tokens >= 41:
        return "41+"
    lo = (n_src_tokens - 1) // 10 * 10 + 1
    return f"{lo}-{lo + 9}"


def _pair(en: str, zh: str, kind: str) -> Pair:
    return Pair(tuple(en.split()), tuple(zh.split()), kind)


# The lesson's own sentences, exactly as the lesson translates them.
LESSON_PAIRS: tuple[Pair, ...] = (
    _pair("you should wear shoes", "你 应该 穿 鞋", "lesson"),
    _pair("how are you", "你 好 吗", "lesson"),
    _pair("where are you", "你 在 哪里", "lesson"),
    _pair("i love you", "我 爱 你", "lesson"),
    _pair("a boy is eating the banana", "一 个 男孩 在 吃 香蕉", "lesson"),
    Pair(
        tuple("the cat drank the milk because it was hungry".split()),
        tuple("猫 喝 了 牛奶 因为 猫 饿 了".split()),
        "lesson",
        check=((5, "猫"),),
        info=(("reading", "subject"),),
    ),
    Pair(
        tuple("the cat drank the milk because it was sweet".split()),
        tuple("猫 喝 了 牛奶 因为 牛奶 很 甜".split()),
        "lesson",
        check=((5, "牛奶"),),
        info=(("reading", "object"),),
    ),
)

# ---------------------------------------------------------------------------------------
# Word tables
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Noun:
    en: str
    zh: str
    cls: str  # classifier after 一: 一 个 男孩, 一 只 猫
    kind: str  # person / animal / food / drink / thing
    mass: bool = False  # may appear bare as an object ("eat rice") and never with "a"
    plural: bool = False  # "shoes", "noodles": agrees with "are", never with "a"


NOUNS: tuple[Noun, ...] = (
    # people
    Noun("boy", "男孩", "个", "person"),
    Noun("girl", "女孩", "个", "person"),
    Noun("man", "男人", "个", "person"),
    Noun("woman", "女人", "个", "person"),
    Noun("father", "爸爸", "个", "person"),
    Noun("mother", "妈妈", "个", "person"),
    Noun("teacher", "老师", "个", "person"),
    Noun("doctor", "医生", "个", "person"),
    Noun("student", "学生", "个", "person"),
    Noun("farmer", "农民", "个", "person"),
    Noun("child", "孩子", "个", "person"),
    Noun("friend", "朋友", "个", "person"),
    Noun("driver", "司机", "个", "person"),
    Noun("nurse", "护士", "个", "person"),
    # animals ("it" is reserved for them in coreference)
    Noun("cat", "猫", "只", "animal"),
    Noun("dog", "狗", "条", "animal"),
    Noun("bird", "鸟", "只", "animal"),
    Noun("horse", "马", "匹", "animal"),
    Noun("rabbit", "兔子", "只", "animal"),
    Noun("duck", "鸭子", "只", "animal"),
    Noun("cow", "牛", "头", "animal"),
    Noun("pig", "猪", "头", "animal"),
    Noun("monkey", "猴子", "只", "animal"),
    Noun("panda", "熊猫", "只", "animal"),
    Noun("tiger", "老虎", "只", "animal"),
    Noun("mouse", "老鼠", "只", "animal"),
    # food
    Noun("rice", "米饭", "碗", "food", mass=True),
    Noun("bread", "面包", "块", "food", mass=True),
    Noun("noodles", "面条", "碗", "food", mass=True, plural=True),
    Noun("meat", "肉", "块", "food", mass=True),
    Noun("cheese", "奶酪", "块", "food", mass=True),
    Noun("corn", "玉米", "根", "food", mass=True),
    Noun("banana", "香蕉", "根", "food"),
    Noun("apple", "苹果", "个", "food"),
    Noun("cake", "蛋糕", "块", "food"),
    Noun("egg", "鸡蛋", "个", "food"),
    Noun("orange", "橙子", "个", "food"),
    Noun("carrot", "胡萝卜", "根", "food"),
    Noun("cookie", "饼干", "块", "food"),
    # drinks
    Noun("milk", "牛奶", "杯", "drink", mass=True),
    Noun("tea", "茶", "杯", "drink", mass=True),
    Noun("water", "水", "杯", "drink", mass=True),
    Noun("coffee", "咖啡", "杯", "drink", mass=True),
    Noun("juice", "果汁", "杯", "drink", mass=True),
    Noun("soup", "汤", "碗", "drink", mass=True),
    # things
    Noun("book", "书", "本", "thing"),
    Noun("ball", "球", "个", "thing"),
    Noun("car", "车", "辆", "thing"),
    Noun("bike", "自行车", "辆", "thing"),
    Noun("cup", "杯子", "个", "thing"),
    Noun("hat", "帽子", "顶", "thing"),
    Noun("bag", "包", "个", "thing"),
    Noun("box", "盒子", "个", "thing"),
    Noun("pen", "笔", "支", "thing"),
    Noun("kite", "风筝", "个", "thing"),
    Noun("shoes", "鞋", "双", "thing", mass=True, plural=True),
)
_NOUN_KINDS: tuple[str, ...] = ("person", "animal", "food", "drink", "thing")


@dataclass(frozen=True)
class Verb:
    base: str
    s3: str  # third person singular present
    past: str
    ing: str  # "" for stative verbs that take no progressive ("liking")
    zh: str
    obj: tuple[str, ...]  # noun kinds it takes as object; () = intransitive
    subj: tuple[str, ...]  # noun kinds it takes as subject


# Verbs whose past equals the base ("read", "put") are left out: "i read the book" would be
# present or past, two Chinese translations for one English sentence.
VERBS: tuple[Verb, ...] = (
    Verb("eat", "eats", "ate", "eating", "吃", ("food",), ("person", "animal")),
    Verb("drink", "drinks", "drank", "drinking", "喝", ("drink",), ("person", "animal")),
    Verb(
        "like",
        "likes",
        "liked",
        "",
        "喜欢",
        ("person", "animal", "food", "drink", "thing"),
        ("person", "animal"),
    ),
    Verb("love", "loves", "loved", "", "爱", ("person", "animal"), ("person",)),
    Verb("see", "sees", "saw", "", "看见", ("person", "animal", "thing"), ("person", "animal")),
    Verb("buy", "buys", "bought", "buying", "买", ("food", "drink", "thing"), ("person",)),
    Verb("cook", "cooks", "cooked", "cooking", "做", ("food",), ("person",)),
    Verb("wash", "washes", "washed", "washing", "洗", ("thing",), ("person",)),
    Verb("feed", "feeds", "fed", "feeding", "喂", ("animal",), ("person",)),
    Verb("help", "helps", "helped", "helping", "帮助", ("person",), ("person",)),
    Verb("find", "finds", "found", "", "找到", ("animal", "thing"), ("person", "animal")),
    Verb("visit", "visits", "visited", "visiting", "看望", ("person",), ("person",)),
    Verb("want", "wants", "wanted", "", "想要", ("food", "drink", "thing"), ("person", "animal")),
    Verb("take", "takes", "took", "taking", "拿", ("thing",), ("person",)),
    Verb("cry", "cries", "cried", "crying", "哭", (), ("person",)),
    Verb("sleep", "sleeps", "slept", "sleeping", "睡觉", (), ("person", "animal")),
    Verb("run", "runs", "ran", "running", "跑步", (), ("person",)),
    Verb("swim", "swims", "swam", "swimming", "游泳", (), ("person", "animal")),
    Verb("sing", "sings", "sang", "singing", "唱歌", (), ("person",)),
    Verb("laugh", "laughs", "laughed", "laughing", "笑", (), ("person",)),
    Verb("dance", "dances", "danced", "dancing", "跳舞", (), ("person",)),
    Verb("work", "works", "worked", "working", "工作", (), ("person",)),
    Verb("play", "plays", "played", "playing", "玩", (), ("person", "animal")),
    Verb("walk", "walks", "walked", "walking", "散步", (), ("person",)),
    Verb("study", "studies", "studied", "studying", "学习", (), ("person",)),
    Verb("rest", "rests", "rested", "resting", "休息", (), ("person", "animal")),
    Verb("jump", "jumps", "jumped", "jumping", "跳", (), ("animal",)),
)

# Verbs of state: their past takes no 了 in Chinese (我 喜欢 猫 for "i liked the cat").
_STATES = frozenset({"like", "love", "want"})

# (subject form, object form or "" if unused, Chinese, agreement)
# "it" and "them"/"their" are reserved for the coreference and long-range constructions.
PRONOUNS: tuple[tuple[str, str, str, str], ...] = (
    ("i", "me", "我", "1s"),
    ("you", "you", "你", "2"),
    ("he", "him", "他", "3s"),
    ("she", "her", "她", "3s"),
    ("we", "us", "我们", "1p"),
    ("they", "", "他们", "3p"),
)
POSSESSIVES: tuple[tuple[str, str], ...] = (
    ("my", "我 的"),
    ("your", "你 的"),
    ("his", "他 的"),
    ("her", "她 的"),
    ("our", "我们 的"),
)
# Attributive adjectives: one character goes straight before the noun (大 猫), two take
# 的 (年轻 的 老师).
ATTRS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("young", "年轻 的", ("person",)),
    ("kind", "善良 的", ("person",)),
    ("big", "大", ("animal", "thing")),
    ("small", "小", ("animal", "thing")),
    ("black", "黑", ("animal",)),
    ("white", "白", ("animal",)),
    ("red", "红", ("thing",)),
    ("new", "新", ("thing",)),
)
# Predicate adjectives by subject kind. State predicates (people, animals) and quality
# predicates (food, drink) are disjoint: that is what decides "it" in coreference.
STATE_PREDS: tuple[tuple[str, str], ...] = (
    ("hungry", "饿 了"),
    ("thirsty", "渴 了"),
    ("tired", "累 了"),
    ("sick", "病 了"),
    ("sleepy", "困 了"),
    ("happy", "很 高兴"),
    ("sad", "很 难过"),
)
FOOD_PREDS: tuple[tuple[str, str], ...] = (
    ("sweet", "很 甜"),
    ("fresh", "很 新鲜"),
    ("salty", "很 咸"),
    ("sour", "很 酸"),
    ("delicious", "很 好吃"),
    ("cheap", "很 便宜"),
)
DRINK_PREDS: tuple[tuple[str, str], ...] = (
    ("sweet", "很 甜"),
    ("fresh", "很 新鲜"),
    ("sour", "很 酸"),
    ("delicious", "很 好喝"),
    ("cheap", "很 便宜"),
)
THING_PREDS: tuple[tuple[str, str], ...] = (
    ("big", "很 大"),
    ("small", "很 小"),
    ("new", "很 新"),
    ("clean", "很 干净"),
    ("heavy", "很 重"),
    ("cheap", "很 便宜"),
)
_PREDS: dict[str, tuple[tuple[str, str], ...]] = {
    "person": STATE_PREDS,
    "animal": STATE_PREDS,
    "food": FOOD_PREDS,
    "drink": DRINK_PREDS,
    "thing": THING_PREDS,
}
# Place phrases; Chinese puts 在 + place before the verb.
PLACES: tuple[tuple[str, str], ...] = (
    ("at home", "在 家"),
    ("at school", "在 学校"),
    ("in the park", "在 公园"),
    ("in the kitchen", "在 厨房"),
    ("in the garden", "在 花园"),
    ("at the station", "在 车站"),
    ("in the shop", "在 商店"),
    ("at the hospital", "在 医院"),
    ("in the classroom", "在 教室"),
    ("on the farm", "在 农场"),
    ("at the zoo", "在 动物园"),
    ("in the library", "在 图书馆"),
)
# Time phrases with the tenses they combine with (pres, past, prog, fut); Chinese puts
# them right after the subject.
TIMES: tuple[tuple[str, str, str], ...] = (
    ("every day", "每天", "pres"),
    ("every morning", "每天 早上", "pres"),
    ("every evening", "每天 晚上", "pres"),
    ("in the morning", "早上", "pres past fut"),
    ("in the evening", "晚上", "pres past fut"),
    ("on sunday", "星期天", "past fut"),
    ("yesterday", "昨天", "past"),
    ("last night", "昨天 晚上", "past"),
    ("last week", "上周", "past"),
    ("this morning", "今天 早上", "past"),
    ("today", "今天", "past fut"),
    ("tomorrow", "明天", "fut"),
    ("next week", "下周", "fut"),
    ("tomorrow morning", "明天 早上", "fut"),
    ("now", "现在", "pres prog"),
)
CONNECTIVES: tuple[tuple[str, str], ...] = (
    ("and", "而且"),
    ("but", "但是"),
    ("because", "因为"),
    ("so", "所以"),
)
SHORT: tuple[tuple[str, str], ...] = (
    ("hello", "你好"),
    ("hi", "你好"),
    ("thanks", "谢谢"),
    ("yes", "是 的"),
    ("no", "不 是"),
    ("goodbye", "再见"),
    ("sorry", "对不起"),
    ("ok", "好 的"),
    ("welcome", "欢迎"),
    ("thank you", "谢谢 你"),
    ("good morning", "早上 好"),
    ("good evening", "晚上 好"),
    ("good night", "晚安"),
    ("excuse me", "打扰 一下"),
    ("of course", "当然"),
    ("i am fine", "我 很 好"),
    ("see you tomorrow", "明天 见"),
    ("nice to meet you", "很 高兴 认识 你"),
)

# Word senses. The ambiguous word never appears without exactly one deciding context, and
# none of the context words below occur anywhere else in the corpus.
SENSES: tuple[tuple[str, str, str], ...] = (  # (word, sense name, Chinese)
    ("transformer", "power", "变压器"),
    ("transformer", "model", "Transformer"),
    ("bank", "money", "银行"),
    ("bank", "river", "河岸"),
)
# Clauses that mention the word but do not decide its sense; X is the translated word.
SENSE_NEUTRAL: dict[str, tuple[tuple[str, str], ...]] = {
    "transformer": (
        ("the transformer is big", "X 很 大"),
        ("we need a new transformer", "我们 需要 一 个 新 X"),
        ("they tested the transformer", "他们 测试 了 X"),
        ("the engineers checked the transformer", "工程师 检查 了 X"),
        ("everyone talks about the transformer", "大家 都 在 谈论 X"),
        ("the transformer failed yesterday", "X 昨天 坏 了"),
        ("i like the transformer", "我 喜欢 X"),
    ),
    "bank": (
        ("i went to the bank", "我 去 了 X"),
        ("we met at the bank", "我们 在 X 见面 了"),
        ("the bank was quiet", "X 很 安静"),
        ("she waited near the bank", "她 在 X 附近 等 着"),
        ("the bank is near my home", "X 离 我 家 很 近"),
        ("i like the bank", "我 喜欢 X"),
    ),
}
# Clauses that decide the sense without naming the word.
SENSE_CONTEXT: dict[str, tuple[tuple[str, str], ...]] = {
    "power": (
        ("the wires were down", "电线 断 了"),
        ("the power went out", "停电 了"),
        ("the voltage was too high", "电压 太 高 了"),
        ("the pole fell in the storm", "电线杆 在 暴风雨 中 倒 了"),
        ("the city had no power", "城市 没有 电"),
        ("the workers fixed the power lines", "工人们 修好 了 电线"),
    ),
    "model": (
        ("the model learns language", "模型 学习 语言"),
        ("attention helps translation", "注意力 帮助 翻译"),
        ("the model reads long text", "模型 阅读 长 文本"),
        ("the model uses attention", "模型 使用 注意力"),
        ("language models need a lot of text", "语言 模型 需要 大量 文本"),
        ("the translation was good", "翻译 很 好"),
    ),
    "money": (
        ("i needed some money", "我 需要 一些 钱"),
        ("he opened an account", "他 开 了 一 个 账户"),
        ("she saved her money", "她 存 了 她 的 钱"),
        ("the loan was expensive", "贷款 很 贵"),
        ("my account was empty", "我 的 账户 是 空 的"),
    ),
    "river": (
        ("the river was wide", "河 很 宽"),
        ("fish swam in the river", "鱼 在 河 里 游"),
        ("we watched the boats on the river", "我们 看 着 河 上 的 船"),
        ("he caught a fish", "他 钓 到 了 一 条 鱼"),
        ("the river flows slowly", "河 水 流 得 很 慢"),
    ),
}
# The word together with an adjacent deciding context, usable inside one neutral clause:
# (English replacing the ambiguous word, Chinese replacing X, where the context sits).
SENSE_INTERNAL: dict[str, tuple[tuple[str, str, str], ...]] = {
    "power": (
        ("transformer on the pole", "电线杆 上 的 变压器", "after"),
        ("power transformer", "电力 变压器", "before"),
    ),
    "model": (
        ("transformer model", "Transformer 模型", "after"),
        ("transformer for translation", "用于 翻译 的 Transformer", "after"),
    ),
    "money": (),
    "river": (("river bank", "河岸", "before"),),
}

# The lesson's long-range example: "the autumn cicadas … so you can hear their song".
# Every opening mentions a singer and a kind of tree. The ending's predicate decides
# which one "their" means (hear … song: the singer; see … shade: the trees), but only the
# distant mention says WHICH singer or tree, so a model must look back to copy it.
LONG_SINGERS: tuple[tuple[str, str], ...] = (
    ("autumn cicadas", "秋蝉"),  # the lesson's
    ("autumn cicadas", "秋蝉"),
    ("crickets", "蟋蟀"),
    ("larks", "云雀"),
)
LONG_TREES: tuple[tuple[str, str], ...] = (
    ("trees", "树"),  # the lesson's
    ("trees", "树"),
    ("willows", "柳树"),
    ("pines", "松树"),
    ("elms", "榆树"),
)
# {s} singer, {t} trees (English, then Chinese).
LONG_INTROS: tuple[tuple[str, str], ...] = (
    ("the {s} live in the {t}", "{s} 住 在 {t} 上"),
    ("the {s} live in the tall {t}", "{s} 住 在 高高 的 {t} 上"),
    ("the {s} live in the {t} in beiping", "{s} 住 在 北平 的 {t} 上"),
    ("the {s} hide in the {t}", "{s} 躲 在 {t} 上"),
    ("the {s} rest in the old {t}", "{s} 在 老 {t} 上 休息"),
    ("the {s} sing in the old {t}", "{s} 在 老 {t} 上 唱歌"),
    ("the {t} are full of {s}", "{t} 上 有 很多 {s}"),
    ("the tall {t} are full of {s}", "高高 的 {t} 上 有 很多 {s}"),
    ("the old {t} are full of {s}", "老 {t} 上 有 很多 {s}"),
    ("the {t} in beiping are full of {s}", "北平 的 {t} 上 有 很多 {s}"),
    ("the green {t} are full of {s}", "绿 {t} 上 有 很多 {s}"),
    ("the {t} are full of {s} in beiping", "北平 的 {t} 上 有 很多 {s}"),
)
# Endings by reading; {a} is the repeated antecedent (Chinese says 秋蝉 where English says
# "their").
LONG_TAILS: dict[str, tuple[tuple[str, str], ...]] = {
    "song": (
        ("so you can hear their song", "所以 你 能 听见 {a} 的 啼唱"),
        ("so we can hear their song", "所以 我们 能 听见 {a} 的 啼唱"),
        ("so people can hear their song", "所以 人们 能 听见 {a} 的 啼唱"),
        ("so children can hear their song", "所以 孩子们 能 听见 {a} 的 啼唱"),
        ("so you hear their song", "所以 你 听见 {a} 的 啼唱"),
        ("so you can hear their song everywhere", "所以 你 到处 都 能 听见 {a} 的 啼唱"),
        ("so you can hear their song all day", "所以 你 整天 都 能 听见 {a} 的 啼唱"),
    ),
    "shade": (
        ("so you can see their shade", "所以 你 能 看见 {a} 的 树荫"),
        ("so we can see their shade", "所以 我们 能 看见 {a} 的 树荫"),
        ("so people can see their shade", "所以 人们 能 看见 {a} 的 树荫"),
        ("so children can see their shade", "所以 孩子们 能 看见 {a} 的 树荫"),
        ("so you see their shade", "所以 你 看见 {a} 的 树荫"),
        ("so you can see their shade everywhere", "所以 你 到处 都 能 看见 {a} 的 树荫"),
        ("so you can see their shade all day", "所以 你 整天 都 能 看见 {a} 的 树荫"),
    ),
}
# Chinese antecedent -> its English head word, where the distance is measured from.
_LONG_HEAD: dict[str, str] = {zh: en.split()[-1] for en, zh in LONG_SINGERS + LONG_TREES}
# Filler about Beiping in autumn. None of it mentions cicadas or trees, so the antecedent
# stays the one in the first clause and the distance is what was asked for.
LONG_FILLER: tuple[tuple[str, str], ...] = (
    ("the houses are low", "房子 很 低"),
    ("the houses in the north are low", "北方 的 房子 很 低"),
    ("autumn in the north is cool", "北方 的 秋天 很 凉爽"),
    ("the sky in beiping is blue", "北平 的 天空 很 蓝"),
    ("the wind is strong in autumn", "秋天 的 风 很 大"),
    ("the old streets are quiet", "老 街道 很 安静"),
    ("people sit outside in the evening", "人们 晚上 坐 在 外面"),
    ("the days are short in the north", "北方 的 白天 很 短"),
)

# ---------------------------------------------------------------------------------------
# Phrases under construction
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _P:
    """A phrase: English and Chinese tokens, probe checks (indices into zh), agreement."""

    en: tuple[str, ...]
    zh: tuple[str, ...]
    check: tuple[tuple[int, str], ...] = ()
    agr: str = "3s"  # 1s, 2, 3s, 1p, 3p: picks am/is/are, eat/eats


_EMPTY = _P((), ())


def _p(en: str, zh: str, agr: str = "3s") -> _P:
    return _P(tuple(en.split()), tuple(zh.split()), (), agr)


def _cat(*parts: _P) -> _P:
    """Concatenate phrases, shifting their checks; agreement comes from the first part."""
    en: list[str] = []
    zh: list[str] = []
    check: list[tuple[int, str]] = []
    for part in parts:
        check.extend((i + len(zh), tok) for i, tok in part.check)
        en.extend(part.en)
        zh.extend(part.zh)
    return _P(tuple(en), tuple(zh), tuple(check), parts[0].agr if parts else "3s")


def _be(agr: str, tense: str) -> str:
    if tense == "past":
        return "was" if agr in ("1s", "3s") else "were"
    return {"1s": "am", "3s": "is"}.get(agr, "are")


def _do(agr: str, tense: str) -> str:
    if tense == "past":
        return "did"
    return "does" if agr == "3s" else "do"


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def _nouns(kind: str) -> tuple[Noun, ...]:
    return _NOUNS_BY_KIND[kind]


_NOUNS_BY_KIND: dict[str, tuple[Noun, ...]] = {
    k: tuple(n for n in NOUNS if n.kind == k) for k in _NOUN_KINDS
}
_TRANSITIVE: tuple[Verb, ...] = tuple(v for v in VERBS if v.obj)
_INTRANSITIVE: tuple[Verb, ...] = tuple(v for v in VERBS if not v.obj)


@cache
def _attrs(kind: str) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    return tuple(a for a in ATTRS if kind in a[2])


@cache
def _places(n: int) -> tuple[tuple[str, str], ...]:
    return tuple(p for p in PLACES if len(p[0].split()) == n)


@cache
def _times(tense: str, n: int) -> tuple[tuple[str, str, str], ...]:
    return tuple(t for t in TIMES if tense in t[2].split() and len(t[0].split()) == n)


@cache
def _time_lengths(tense: str) -> tuple[int, ...]:
    return tuple(sorted({len(t[0].split()) for t in TIMES if tense in t[2].split()}))


# ---------------------------------------------------------------------------------------
# Exact-length planning
# ---------------------------------------------------------------------------------------


@cache
def _reach(total: int, options: tuple[tuple[int, ...], ...]) -> tuple[frozenset[int], ...]:
    """reach[i]: the totals (<= total) that slots i.. can sum to."""
    reach: list[frozenset[int]] = [frozenset((0,))]
    for opts in reversed(options):
        prev = reach[-1]
        reach.append(frozenset(a + b for a in opts for b in prev if a + b <= total))
    reach.reverse()
    return tuple(reach)


def _split(rng: random.Random, total: int, options: Sequence[Sequence[int]]) -> list[int] | None:
    """Pick one length per slot from ``options`` so that they sum to ``total``.

    A backward pass records which totals the remaining slots can reach (cached: the same
    plans recur constantly); the forward pass then draws uniformly among the lengths that
    keep the rest reachable.
    """
    opts_t = tuple(tuple(sorted(set(o))) for o in options)
    reach = _reach(total, opts_t)
    if total not in reach[0]:
        return None
    out: list[int] = []
    rem = total
    for i, opts in enumerate(opts_t):
        x = rng.choice([x for x in opts if rem - x in reach[i + 1]])
        out.append(x)
        rem -= x
    return out


_MAX_NP = 22  # longest noun phrase (with nested relative clauses)


@cache
def _np_lengths(kind: str, role: str, depth: int, rel_only: bool = False) -> tuple[int, ...]:
    """All lengths a noun phrase of ``kind`` can have (depth = allowed relative nesting)."""
    out: set[int] = set()
    if not rel_only:
        if kind == "person":
            out.add(1)  # pronoun
        if role == "obj" and any(n.mass for n in _nouns(kind)):
            out.add(1)  # bare mass noun: "rice", "shoes"
        out.add(2)
        if _attrs(kind):
            out.add(3)
    if depth > 0:
        adjs = (0, 1) if _attrs(kind) else (0,)
        for adj in adjs:
            for verb in VERBS:
                if kind in verb.obj:  # the cat that [subject] saw
                    for sk in verb.subj:
                        out.update(4 + adj + s for s in _np_lengths(sk, "subj", depth - 1))
                if kind in verb.subj:  # the boy who cried / who eats rice
                    if not verb.obj:
                        out.add(4 + adj)
                    for ok in verb.obj:
                        out.update(4 + adj + o for o in _np_lengths(ok, "obj", depth - 1))
    return tuple(sorted(x for x in out if x <= _MAX_NP))


def _np(rng: random.Random, kind: str, role: str, depth: int, n: int, rel_only: bool = False) -> _P:
    """A noun phrase of ``kind`` with exactly ``n`` English tokens."""
    form = rng.choice(_np_forms(kind, role, depth, n, rel_only))
    return _np_build(rng, form, kind, role, depth, n)


@cache
def _np_forms(kind: str, role: str, depth: int, n: int, rel_only: bool) -> tuple[tuple, ...]:
    """The noun-phrase shapes that give exactly ``n`` tokens (pronoun, "the N", relative …)."""
    forms: list[tuple] = []
    if not rel_only:
        if n == 1 and kind == "person":
            forms.append(("pron",))
        if n == 1 and role == "obj" and any(x.mass for x in _nouns(kind)):
            forms.append(("bare",))
        if n == 2:
            forms.append(("det",))
        if n == 3 and _attrs(kind):
            forms.append(("det_adj",))
    if depth > 0 and n >= 4:
        adjs = (0, 1) if _attrs(kind) else (0,)
        for adj in adjs:
            m = n - 4 - adj
            for verb in VERBS:
                if kind in verb.obj:
                    for sk in verb.subj:
                        if m in _np_lengths(sk, "subj", depth - 1):
                            forms.append(("objrel", adj, verb, sk))
                if kind in verb.subj:
                    if not verb.obj and m == 0:
                        forms.append(("subjrel", adj, verb, ""))
                    for ok in verb.obj:
                        if m in _np_lengths(ok, "obj", depth - 1):
                            forms.append(("subjrel", adj, verb, ok))
    if not forms:
        raise ValueError(f"no {kind} noun phrase of length {n} at depth {depth}")
    return tuple(forms)


def _np_build(rng: random.Random, form: tuple, kind: str, role: str, depth: int, n: int) -> _P:
    tag = form[0]
    if tag == "pron":
        opts = [p for p in PRONOUNS if role == "subj" or p[1]]
        en_s, en_o, zh, agr = rng.choice(opts)
        return _p(en_s if role == "subj" else en_o, zh, agr)
    if tag == "bare":
        noun = rng.choice([x for x in _nouns(kind) if x.mass])
        return _p(noun.en, noun.zh, "3p" if noun.plural else "3s")
    if tag in ("det", "det_adj"):
        noun = rng.choice(_nouns(kind))
        agr = "3p" if noun.plural else "3s"
        adj_en, adj_zh = "", ""
        if tag == "det_adj":
            adj_en, adj_zh, _ = rng.choice(_attrs(kind))
        word = f"{adj_en} {noun.en}".strip()
        named = f"{adj_zh} {noun.zh}".strip()
        choice = rng.random()
        if choice < 0.5 or (choice < 0.8 and noun.mass):
            return _p(f"the {word}", named, agr)
        if choice < 0.8:
            return _p(f"{_article(word)} {word}", f"一 {noun.cls} {named}", agr)
        poss_en, poss_zh = rng.choice(POSSESSIVES)
        return _p(f"{poss_en} {word}", f"{poss_zh} {named}", agr)
    # Relative clauses: the head noun is singular and always "the"; Chinese puts the
    # clause before the noun with 的 (我 看见 的 猫, 吃 米饭 的 男孩).
    _, adj, verb, other = form
    noun = rng.choice([x for x in _nouns(kind) if not x.plural])
    head_en, head_zh = noun.en, noun.zh
    if adj:
        a_en, a_zh, _ = rng.choice(_attrs(kind))
        head_en, head_zh = f"{a_en} {noun.en}", f"{a_zh} {noun.zh}"
    m = n - 4 - adj
    past = rng.random() < 0.5
    if tag == "objrel":
        subj = _np(rng, other, "subj", depth - 1, m)
        form_en = verb.past if past else (verb.s3 if subj.agr == "3s" else verb.base)
        return _P(
            ("the", *head_en.split(), "that", *subj.en, form_en),
            (*subj.zh, verb.zh, "的", *head_zh.split()),
        )
    rel = "who" if kind == "person" else "that"
    form_en = verb.past if past else verb.s3
    if not other:
        return _P(("the", *head_en.split(), rel, form_en), (verb.zh, "的", *head_zh.split()))
    obj = _np(rng, other, "obj", depth - 1, m)
    le = ("了",) if past and verb.base not in _STATES else ()
    return _P(
        ("the", *head_en.split(), rel, form_en, *obj.en),
        (verb.zh, *le, *obj.zh, "的", *head_zh.split()),
        tuple((i + 1 + len(le), t) for i, t in obj.check),
    )


# ---------------------------------------------------------------------------------------
# Clauses
# ---------------------------------------------------------------------------------------

_TENSES: tuple[str, ...] = ("pres", "past", "prog", "fut")


def _verb_en(verb: Verb, tense: str, agr: str) -> tuple[str, ...]:
    if tense == "pres":
        return (verb.s3 if agr == "3s" else verb.base,)
    if tense == "past":
        return (verb.past,)
    if tense == "prog":
        return (_be(agr, "pres"), verb.ing)
    return ("will", verb.base)


def _verb_zh(verb: Verb, tense: str, place: _P, obj: _P | None, time: _P) -> tuple[str, ...]:
    """Chinese predicate: [time] [会] [place | 在] V [了] [O] [了].

    Progressive 在 merges with a place phrase (我 在 家 吃 米饭); past 了 follows the verb
    when there is an object (吃 了 米饭) and ends the clause otherwise (哭 了).
    """
    out: list[str] = list(time.zh)
    if tense == "fut":
        out.append("会")
    out.extend(place.zh)
    if tense == "prog" and not place.zh:
        out.append("在")
    out.append(verb.zh)
    if obj is not None:
        # states (喜欢, 爱, 想要) take no perfective 了: 我 喜欢 猫 for "i liked the cat"
        if tense == "past" and verb.base not in _STATES:
            out.append("了")
        out.extend(obj.zh)
    elif tense == "past":
        out.append("了")
    return tuple(out)


def _declare(subj: _P, verb: Verb, tense: str, obj: _P | None, place: _P, time: _P) -> _P:
    """English S V [O] [place] [time] -> Chinese S [time] [place] V [O]."""
    en = (*subj.en, *_verb_en(verb, tense, subj.agr), *(obj.en if obj else ()))
    zh = (*subj.zh, *_verb_zh(verb, tense, place, obj, time))
    return _P((*en, *place.en, *time.en), zh)


def _ask(q: str, subj: _P, verb: Verb, tense: str, obj: _P | None, place: _P, time: _P) -> _P:
    """A question with a verb; q is "yn", "where", "what" (object gap) or "why".

    English inverts with do / does / did / is / will; Chinese keeps statement order and
    adds 吗 or puts the question word where the answer would be (在 哪里 before the verb,
    什么 as the object, 为什么 after the subject and time).
    """
    verb_en = _verb_en(verb, tense, subj.agr)
    if tense in ("pres", "past"):
        aux, main = _do(subj.agr, tense), verb.base
    else:
        aux, main = verb_en[0], verb_en[1]
    tail = (*(obj.en if obj else ()), *place.en, *time.en)
    lead = () if q == "yn" else (q,)
    en = (*lead, aux, *subj.en, main, *tail)
    if q == "yn":
        zh = (*subj.zh, *_verb_zh(verb, tense, place, obj, time), "吗")
    elif q == "where":
        zh = (*subj.zh, *_verb_zh(verb, tense, _p("", "在 哪里"), obj, time))
    elif q == "what":
        zh = (*subj.zh, *_verb_zh(verb, tense, place, _p("", "什么"), time))
    else:
        why = _verb_zh(verb, tense, place, obj, _EMPTY)
        zh = (*subj.zh, *time.zh, "为什么", *why)
    return _P(en, zh)


def _place(rng: random.Random, n: int) -> _P:
    if n == 0:
        return _EMPTY
    en, zh = rng.choice(_places(n))
    return _p(en, zh)


def _time(rng: random.Random, tense: str, n: int) -> _P:
    if n == 0:
        return _EMPTY
    en, zh, _ = rng.choice(_times(tense, n))
    return _p(en, zh)


def _opt_lengths(lengths: Sequence[int], mode: str) -> tuple[int, ...]:
    """Lengths of an optional slot: mode 'none' forbids it, 'need' requires it."""
    if mode == "none":
        return (0,)
    if mode == "need":
        return tuple(x for x in lengths if x > 0)
    return (0, *lengths)


def _clause(
    rng: random.Random,
    n: int,
    *,
    depth: int = 0,
    adjunct: str = "any",
    need_rel: bool = False,
) -> _P | None:
    """A declarative clause of exactly ``n`` English tokens, or None if none was found.

    adjunct: "any", "need" (a place or time phrase, i.e. Chinese reordering) or "none".
    depth: how deeply relative clauses may nest inside its noun phrases.
    need_rel: at least one noun phrase is a relative clause (needs depth >= 1).
    """
    for _ in range(150):  # a failed plan is cheap; extreme lengths need many tries
        ctype = rng.choices(("T", "I", "A", "L"), weights=(6, 3, 2, 1))[0]
        if need_rel and ctype != "T" and rng.random() < 0.5:
            ctype = "T"
        if ctype in ("T", "I"):
            verb = rng.choice(_TRANSITIVE if ctype == "T" else _INTRANSITIVE)
            tense = rng.choice([t for t in _TENSES if t != "prog" or verb.ing])
            subj_kind = rng.choice(verb.subj)
            obj_kind = rng.choice(verb.obj) if verb.obj else ""
            fixed = 1 if tense in ("pres", "past") else 2
        else:
            verb = None
            tense = rng.choice(("pres", "past"))
            subj_kind = rng.choice(("person", "animal", "thing") if ctype == "L" else _NOUN_KINDS)
            obj_kind = ""
            fixed = 2 if ctype == "A" else 1
        # Which of place / time carries the required adjunct.
        place_mode, time_mode = adjunct, adjunct
        if adjunct == "need":
            if ctype == "A" or ctype == "L" or rng.random() < 0.5:
                place_mode, time_mode = "any", "need"
            else:
                place_mode, time_mode = "need", "any"
        if ctype == "A":
            place_mode = "none"
        rel_subj = need_rel and (not obj_kind or rng.random() < 0.5)
        rel_obj = need_rel and not rel_subj
        slots: list[Sequence[int]] = [_np_lengths(subj_kind, "subj", depth, rel_subj)]
        if obj_kind:
            slots.append(_np_lengths(obj_kind, "obj", depth, rel_obj))
        if ctype == "L":
            slots.append((2, 3))
        else:
            slots.append(_opt_lengths((2, 3), place_mode))
        slots.append(_opt_lengths(_time_lengths("pres" if tense == "pres" else tense), time_mode))
        plan = _split(rng, n - fixed, slots)
        if plan is None:
            continue
        subj = _np(rng, subj_kind, "subj", depth, plan[0], rel_subj)
        obj = _np(rng, obj_kind, "obj", depth, plan[1], rel_obj) if obj_kind else None
        place = _place(rng, plan[-2])
        time = _time(rng, tense, plan[-1])
        if verb is not None:
            return _declare(subj, verb, tense, obj, place, time)
        be = _be(subj.agr, tense)
        if ctype == "A":
            kind = subj_kind
            adj_en, adj_zh = rng.choice(_PREDS[kind])
            return _P(
                (*subj.en, be, adj_en, *time.en),
                (*subj.zh, *time.zh, *adj_zh.split()),
            )
        # "the cat is in the garden" -> 猫 在 花园
        return _P((*subj.en, be, *place.en, *time.en), (*subj.zh, *time.zh, *place.zh))
    return None


# ---------------------------------------------------------------------------------------
# Questions
# ---------------------------------------------------------------------------------------


def _question(rng: random.Random, n: int, depth: int = 1) -> _P | None:
    """A question of exactly ``n`` tokens: yes/no (吗), where (哪里), what (什么), why (为什么)."""
    for _ in range(40):
        q = rng.choice(("yn", "yn", "yn_be", "where_be", "where", "what", "why", "why_be", "how"))
        if q in ("yn", "where", "what", "why"):
            pool = _TRANSITIVE if q == "what" else VERBS
            verb = rng.choice(pool)
            tenses = ["pres", "past"]
            if q in ("yn", "what") and verb.ing:
                tenses.append("prog")
            if q == "yn":
                tenses.append("fut")
            tense = rng.choice(tenses)
            subj_kind = rng.choice(verb.subj)
            obj_kind = rng.choice(verb.obj) if verb.obj and q != "what" else ""
            if q == "what" and not set(verb.obj) & {"food", "drink", "thing"}:
                continue
            fixed = {"yn": 2, "where": 3, "what": 3, "why": 3}[q]
            slots: list[Sequence[int]] = [_np_lengths(subj_kind, "subj", depth)]
            if obj_kind:
                slots.append(_np_lengths(obj_kind, "obj", depth))
            slots.append((0,) if q == "where" else (0, 2, 3))
            slots.append((0, *_time_lengths(tense)))
            plan = _split(rng, n - fixed, slots)
            if plan is None:
                continue
            subj = _np(rng, subj_kind, "subj", depth, plan[0])
            obj = _np(rng, obj_kind, "obj", depth, plan[1]) if obj_kind else None
            place = _place(rng, plan[-2])
            time = _time(rng, tense, plan[-1])
            return _ask(q, subj, verb, tense, obj, place, time)
        # Questions about the subject with "be".
        tense = "pres" if q == "how" else rng.choice(("pres", "past"))
        subj_kind = rng.choice(("person", "animal") if q == "how" else _NOUN_KINDS)
        if q == "where_be" and subj_kind in ("food", "drink"):
            subj_kind = "thing"
        fixed = {"yn_be": 1, "where_be": 2, "why_be": 2, "how": 2}[q]
        if q == "yn_be" and rng.random() < 0.3 and subj_kind != "food" and subj_kind != "drink":
            pred_opts: tuple[int, ...] = (2, 3)  # "is the cat at home"
        elif q in ("yn_be", "why_be"):
            pred_opts = (1,)
        else:
            pred_opts = (0,)
        time_opts = (0,) if q == "how" else (0, *_time_lengths(tense))
        plan = _split(rng, n - fixed, [_np_lengths(subj_kind, "subj", depth), pred_opts, time_opts])
        if plan is None:
            continue
        subj = _np(rng, subj_kind, "subj", depth, plan[0])
        time = _time(rng, tense, plan[2])
        be = _be(subj.agr, tense)
        if plan[1] >= 2:
            pred = _place(rng, plan[1])
        elif plan[1] == 1:
            adj_en, adj_zh = rng.choice(_PREDS[subj_kind])
            pred = _p(adj_en, adj_zh)
        else:
            pred = _EMPTY
        if q == "yn_be":
            return _P((be, *subj.en, *pred.en, *time.en), (*subj.zh, *time.zh, *pred.zh, "吗"))
        if q == "where_be":
            return _P(("where", be, *subj.en, *time.en), (*subj.zh, *time.zh, "在", "哪里"))
        if q == "why_be":
            return _P(
                ("why", be, *subj.en, *pred.en, *time.en),
                (*subj.zh, *time.zh, "为什么", *pred.zh),
            )
        return _P(("how", be, *subj.en), (*subj.zh, "好", "吗"))
    return None


# ---------------------------------------------------------------------------------------
# Coreference, word sense, long range
# ---------------------------------------------------------------------------------------


def _coref(rng: random.Random, reading: str | None = None) -> _P:
    """ "the cat drank the milk because it was hungry" -> 猫 喝 了 牛奶 因为 猫 饿 了.

    The predicate decides the antecedent: a state (hungry) needs the animal subject, a
    quality (sweet) belongs to the food, and Chinese repeats the noun it refers to.
    Subjects are animals only: with people English says he / she, and the ordinary
    grammar's "… because he was hungry" (Chinese 他) would give one English sentence two
    translations.
    """
    reading = reading or rng.choice(("subject", "object"))
    subj = rng.choice(_nouns("animal"))
    obj_kind = rng.choice(("food", "drink"))
    obj = rng.choice([x for x in _nouns(obj_kind) if not x.plural])
    eat = "eat" if obj_kind == "food" else "drink"
    verb = next(v for v in VERBS if v.base == eat)
    if rng.random() < 0.25:  # present: "the cat likes the milk because it is sweet"
        verb = next(v for v in VERBS if v.base == "like")
        verb_en, verb_zh, be = verb.s3, (verb.zh,), "is"
    else:
        verb_en, verb_zh, be = verb.past, (verb.zh, "了"), "was"
    pron = "it"
    if reading == "subject":
        adj_en, adj_zh = rng.choice(STATE_PREDS)
        ante = subj.zh
    else:
        adj_en, adj_zh = rng.choice(_PREDS[obj_kind])
        ante = obj.zh
    zh = (subj.zh, *verb_zh, obj.zh, "因为", ante, *adj_zh.split())
    return _P(
        ("the", subj.en, verb_en, "the", obj.en, "because", pron, be, adj_en),
        zh,
        ((len(verb_zh) + 3, ante),),
    )


def _sense(rng: random.Random, sense: str | None = None, where: str | None = None) -> _P:
    """A sentence whose ambiguous word (transformer, bank) is decided by one context.

    where: "before" / "after" (context clause before or after the word's clause) or
    "internal" (context next to the word in the same clause: "the transformer model").
    """
    word, sense, zh_word = (
        rng.choice(SENSES) if sense is None else next(s for s in SENSES if s[1] == sense)
    )
    if where is None:
        where = rng.choice(("before", "after", "after", "internal"))
    if where == "internal" and not SENSE_INTERNAL[sense]:
        where = rng.choice(("before", "after"))
    neutral_en, neutral_zh = rng.choice(SENSE_NEUTRAL[word])
    if where == "internal":
        inner_en, inner_zh, _ = rng.choice(SENSE_INTERNAL[sense])
        neutral_en = neutral_en.replace(word, inner_en)
    else:
        inner_zh = zh_word
    zh = tuple(neutral_zh.replace("X", inner_zh).split())
    clause = _P(tuple(neutral_en.split()), zh, ((zh.index(zh_word), zh_word),))
    if where == "internal":
        return clause
    ctx_en, ctx_zh = rng.choice(SENSE_CONTEXT[sense])
    conn_en, conn_zh = rng.choice(CONNECTIVES)
    context = _p(ctx_en, ctx_zh)
    if where == "after":
        return _cat(clause, _p(conn_en, conn_zh), context)
    return _cat(context, _p(conn_en, conn_zh), clause)


_SEG_MIN, _SEG_MAX = 3, 15  # a joined clause: connective + 2..14 tokens


def _segment_lengths(rng: random.Random, total: int) -> list[int] | None:
    """Split ``total`` tokens into connective+clause segments of 3..15 tokens."""
    if total == 0:
        return []
    if total < _SEG_MIN:
        return None
    out: list[int] = []
    while total > _SEG_MAX:
        x = rng.randint(_SEG_MIN, min(_SEG_MAX, total - _SEG_MIN))
        out.append(x)
        total -= x
    out.append(total)
    return out


def _segments(
    rng: random.Random,
    total: int,
    *,
    filler: bool = False,
    lead: bool = False,
    conns: Sequence[tuple[str, str]] = CONNECTIVES,
) -> _P | None:
    """``total`` tokens of "and / but / because / so + clause" segments (None if impossible).

    filler: sometimes use the long-range example's clauses about Beiping.
    lead: segments come before the main part, so each is "clause + connective".
    """
    lengths = _segment_lengths(rng, total)
    if lengths is None:
        return None
    parts: list[_P] = []
    for seg in lengths:
        conn_en, conn_zh = rng.choice(conns)
        clause = None
        if filler and rng.random() < 0.5:
            fits = [f for f in LONG_FILLER if len(f[0].split()) == seg - 1]
            if fits:
                clause = _p(*rng.choice(fits))
        if clause is None:
            clause = _clause(rng, seg - 1, depth=1 if seg > 6 else 0)
        if clause is None:
            return None
        conn = _p(conn_en, conn_zh)
        parts.extend((clause, conn) if lead else (conn, clause))
    return _cat(*parts)


def _longrange_options(
    distance: int, reading: str, singer: str, tree: str
) -> list[tuple[int, int, int]]:
    """(intro index, tail index, filler length) choices that give exactly ``distance``."""
    head = (singer if reading == "song" else tree).split()[-1]
    out = []
    for i, (intro_en, _) in enumerate(LONG_INTROS):
        words = intro_en.format(s=singer, t=tree).split()
        ante_at = words.index(head)
        for j, (tail_en, _) in enumerate(LONG_TAILS[reading]):
            their_at = tail_en.split().index("their")
            filler = distance - (len(words) + their_at - ante_at)
            if filler == 0 or filler >= _SEG_MIN:
                out.append((i, j, filler))
    return out


def _longrange(rng: random.Random, distance: int, reading: str) -> _P:
    """The autumn cicadas … so you can hear their song / see their shade.

    reading: "song" (their = the singer, 秋蝉) or "shade" (their = the trees, 树).
    ``distance`` is the number of source tokens from the antecedent's head word in the
    opening clause to "their"; any distance >= 4 is possible. Chinese repeats the noun.
    """
    if reading not in LONG_TAILS:
        raise ValueError(f"reading must be 'song' or 'shade', got {reading!r}")
    singer_en, singer_zh = rng.choice(LONG_SINGERS)
    tree_en, tree_zh = rng.choice(LONG_TREES)
    options = _longrange_options(distance, reading, singer_en, tree_en)
    if not options:
        raise ValueError(f"long-range distance must be at least 4 tokens, got {distance}")
    for _ in range(20):
        i, j, filler_len = rng.choice(options)
        filler = _segments(rng, filler_len, filler=True)
        if filler is not None:
            break
    else:  # pragma: no cover - the clause grammar covers every segment length
        raise RuntimeError(f"could not build {filler_len} tokens of filler")
    antecedent = singer_zh if reading == "song" else tree_zh
    intro_en, intro_zh = LONG_INTROS[i]
    tail_en, tail_zh = LONG_TAILS[reading][j]
    intro = _p(intro_en.format(s=singer_en, t=tree_en), intro_zh.format(s=singer_zh, t=tree_zh))
    tail = tuple(tail_zh.format(a=antecedent).split())
    tail_p = _P(tuple(tail_en.split()), tail, ((tail.index(antecedent), antecedent),))
    return _cat(intro, filler, tail_p)


def _distance(src: Sequence[str], antecedent: str) -> int:
    """Source distance from the antecedent's mention in the opening clause to "their"."""
    words = list(src)
    return words.index("their") - words.index(_LONG_HEAD[antecedent])


# ---------------------------------------------------------------------------------------
# Sentences
# ---------------------------------------------------------------------------------------


def _ok_rest(r: int) -> bool:
    return r == 0 or r >= _SEG_MIN


def _pad(
    rng: random.Random,
    core: _P,
    length: int,
    *,
    before: bool = True,
    after: bool = True,
    conns: Sequence[tuple[str, str]] = CONNECTIVES,
) -> _P | None:
    """Join clauses before and/or after ``core`` until the source has ``length`` tokens."""
    rest = length - len(core.en)
    if rest < 0 or not _ok_rest(rest):
        return None
    if rest == 0:
        return core
    choices = [
        b
        for b in range(rest + 1)
        if _ok_rest(b) and _ok_rest(rest - b) and (before or b == 0) and (after or b == rest)
    ]
    if not choices:
        return None
    b = rng.choice(choices)
    head = _segments(rng, b, lead=True, conns=conns)
    tail = _segments(rng, rest - b)
    if head is None or tail is None:
        return None
    return _cat(head, core, tail)


# A question comes last, after "… but" / "… so" ("i like tea but do you like tea").
_QUESTION_CONNECTIVES: tuple[tuple[str, str], ...] = (("but", "但是"), ("so", "所以"))
# How often each construction is picked (among those that can have the requested length).
_KIND_WEIGHTS: tuple[tuple[str, int], ...] = (
    ("short", 3),
    ("simple", 2),
    ("reorder", 3),
    ("relative", 3),
    ("question", 3),
    ("coref", 2),
    ("sense", 2),
    ("longrange", 2),
    ("compound", 3),
)


def _feasible(kind: str, n: int) -> bool:
    if kind == "short":
        return any(len(en.split()) == n for en, _ in SHORT)
    lo, hi = {
        "simple": (2, 8),
        "reorder": (3, 14),
        "relative": (5, 10**6),
        "question": (3, 10**6),
        "coref": (9, 10**6),
        "sense": (4, 10**6),
        "longrange": (12, 10**6),
        "compound": (5, 10**6),
    }[kind]
    return lo <= n <= hi


def _core_length(rng: random.Random, n: int, lo: int, hi: int) -> int | None:
    options = [c for c in range(lo, min(hi, n) + 1) if _ok_rest(n - c)]
    return rng.choice(options) if options else None


def _build(rng: random.Random, kind: str, n: int) -> tuple[_P, tuple[tuple[str, str], ...]] | None:
    """One attempt at a sentence of ``kind`` with exactly ``n`` source tokens."""
    info: tuple[tuple[str, str], ...] = ()
    if kind == "short":
        en, zh = rng.choice([s for s in SHORT if len(s[0].split()) == n])
        return _p(en, zh), info
    if kind == "simple":
        core = _clause(rng, n, adjunct="none")
        return (core, info) if core else None
    if kind == "reorder":
        core = _clause(rng, n, adjunct="need")
        return (core, info) if core else None
    if kind == "relative":
        c = _core_length(rng, n, 5, 28)
        core = c and _clause(rng, c, depth=2 if c > 10 else 1, need_rel=True)
        out = core and _pad(rng, core, n)
    elif kind == "question":
        c = _core_length(rng, n, 3, 24)
        core = c and _question(rng, c, depth=2 if c > 12 else 1)
        out = core and _pad(rng, core, n, after=False, conns=_QUESTION_CONNECTIVES)
    elif kind == "coref":
        reading = rng.choice(("subject", "object"))
        core = _coref(rng, reading)
        info = (("reading", reading), ("antecedent", core.check[0][1]))
        out = _pad(rng, core, n)
    elif kind == "sense":
        core = _sense(rng)
        ante = core.check[0][1]
        word = next(s[0] for s in SENSES if s[2] == ante)
        info = (("word", word), ("sense", ante))
        out = _pad(rng, core, n)
    elif kind == "longrange":
        reading = rng.choice(("song", "shade"))
        # core length = distance + (tokens outside the span, at least 8); the lower bound
        # grows with n so that long sentences mostly carry long distances
        hi = max(4, min(45, n - 8))
        distance = rng.randint(min(hi, max(4, (n - 8) // 3)), hi)
        core = _longrange(rng, distance, reading)
        ante = core.check[0][1]
        info = (("antecedent", ante), ("distance", str(distance)), ("reading", reading))
        out = _pad(rng, core, n)
    else:  # compound: two or more clauses joined by connectives
        c = _core_length(rng, n - _SEG_MIN, 2, 14)
        core = c and _clause(rng, c, depth=1 if c > 6 else 0)
        out = core and _pad(rng, core, n, before=False)
    return (out, info) if out else None


def sample_pair(rng: random.Random, length: int | None = None) -> Pair:
    """One sentence pair drawn from the grammar.

    With ``length`` the source has exactly that many tokens (any length >= 1 is possible;
    sentences longer than about 15 tokens are clauses joined by and / but / because / so);
    without it the length is uniform over 1..55.
    """
    n = rng.randint(1, MAX_LEN) if length is None else int(length)
    if n < 1:
        raise ValueError(f"length must be at least 1 source token, got {length}")
    kinds = [(k, w) for k, w in _KIND_WEIGHTS if _feasible(k, n)]
    for _ in range(50):
        kind = rng.choices([k for k, _ in kinds], weights=[w for _, w in kinds])[0]
        built = _build(rng, kind, n)
        if built is not None:
            phrase, info = built
            return Pair(phrase.en, phrase.zh, kind, phrase.check, info)
    raise RuntimeError(f"could not build a sentence of {n} tokens")  # pragma: no cover


def generate(n: int, seed: int, *, min_len: int = 1, max_len: int = MAX_LEN) -> list[Pair]:
    """``n`` pairs with source lengths uniform over ``min_len..max_len`` (seeded)."""
    if not 1 <= min_len <= max_len:
        raise ValueError(f"need 1 <= min_len <= max_len, got {min_len}..{max_len}")
    rng = random.Random(seed)
    return [sample_pair(rng, rng.randint(min_len, max_len)) for _ in range(n)]


# ---------------------------------------------------------------------------------------
# Probe sets
# ---------------------------------------------------------------------------------------

_LESSON_SRC = frozenset(p.src for p in LESSON_PAIRS)


def _balanced(make, n: int, kind: str, cells: int) -> list[Pair]:
    """Collect n distinct pairs, an equal share (±1) from each of ``cells`` cells."""
    out: list[Pair] = []
    seen: set[tuple[str, ...]] = set()
    counts = [0] * cells
    quota = [n // cells + (1 if c < n % cells else 0) for c in range(cells)]
    i = 0
    while len(out) < n:
        cell = i % cells
        i += 1
        if counts[cell] >= quota[cell]:
            continue
        phrase, info = make(cell)
        if phrase.en in seen or phrase.en in _LESSON_SRC:
            if i > 2000 * (n + 1):  # pragma: no cover - the grammar has far more sentences
                raise RuntimeError(f"could not find {n} distinct {kind} probes")
            continue
        seen.add(phrase.en)
        counts[cell] += 1
        out.append(Pair(phrase.en, phrase.zh, kind, phrase.check, info))
    return out


def coref_probe(seed: int = 7, n: int = 200) -> list[Pair]:
    """ "the <animal> ate/drank the <food> because it was <pred>": half subject readings.

    ``check`` points at the repeated antecedent in the Chinese; info has the reading.
    """
    rng = random.Random(seed)
    readings = ("subject", "object")

    def make(cell: int) -> tuple[_P, tuple[tuple[str, str], ...]]:
        p = _coref(rng, readings[cell])
        return p, (("reading", readings[cell]), ("antecedent", p.check[0][1]))

    return _balanced(make, n, "coref", len(readings))


def sense_probe(seed: int = 8, n: int = 200) -> list[Pair]:
    """Ambiguous words (transformer, bank), an equal share of each of the four senses.

    Within a sense the deciding context alternates before / after the word (and inside
    the same clause where the sense has such a phrase). ``check`` points at the
    translated word; info has word, sense, context.
    """
    rng = random.Random(seed)

    def make(cell: int) -> tuple[_P, tuple[tuple[str, str], ...]]:
        sense = SENSES[cell][1]
        where = rng.choice(
            ("before", "after", "internal") if SENSE_INTERNAL[sense] else ("before", "after")
        )
        p = _sense(rng, sense, where)
        word = SENSES[cell][0]
        return p, (("word", word), ("sense", p.check[0][1]), ("context", where))

    return _balanced(make, n, "sense", len(SENSES))


def longrange_probe(
    seed: int = 9, distances: tuple[int, ...] = (5, 10, 20, 30, 40), n_per: int = 40
) -> list[Pair]:
    """The autumn-cicada sentences at each requested distance (>= 4), half of each reading.

    info: ("antecedent", Chinese noun), ("distance", d) = source tokens from the
    antecedent's head word to "their", ("reading", "song" | "shade"); ``check`` points at
    the repeated antecedent in the Chinese.
    """
    rng = random.Random(seed)
    out: list[Pair] = []
    readings = ("song", "shade")
    for d in distances:

        def make(cell: int, d: int = d) -> tuple[_P, tuple[tuple[str, str], ...]]:
            p = _longrange(rng, d, readings[cell])
            ante = p.check[0][1]
            return p, (("antecedent", ante), ("distance", str(d)), ("reading", readings[cell]))

        out.extend(_balanced(make, n_per, "longrange", len(readings)))
    return out


# ---------------------------------------------------------------------------------------
# Splits
# ---------------------------------------------------------------------------------------

LESSON_COPIES = 30  # each lesson pair appears this often in train


def _stratified(
    rng: random.Random, n: int, exclude: set[tuple[str, ...]], seen: set[tuple[str, ...]]
) -> list[Pair]:
    """n distinct pairs, an equal share per length bucket (fixed greetings left out)."""
    out: list[Pair] = []
    for b, (lo, hi) in enumerate(_BUCKET_RANGES):
        want = n // len(BUCKETS) + (1 if b < n % len(BUCKETS) else 0)
        got = 0
        while got < want:
            pair = sample_pair(rng, rng.randint(max(lo, 2), hi))
            if pair.kind == "short" or pair.src in exclude or pair.src in seen:
                continue
            seen.add(pair.src)
            out.append(pair)
            got += 1
    return out


def build_splits(
    seed: int = 1234, n_train: int = 60000, n_dev: int = 1000, n_test: int = 2500
) -> Splits:
    """Train / dev / test splits with no shared source sentence.

    dev and test are stratified by length bucket and contain no lesson sentence, no fixed
    greeting and no probe sentence; train (uniform lengths 1..55) contains no probe
    sentence and every lesson pair LESSON_COPIES times, within its n_train pairs.
    """
    probes = coref_probe() + sense_probe() + longrange_probe()
    probe_src = {p.src for p in probes}
    reserved = probe_src | set(_LESSON_SRC)
    seen: set[tuple[str, ...]] = set()
    test = _stratified(random.Random(seed * 3 + 1), n_test, reserved, seen)
    dev = _stratified(random.Random(seed * 3 + 2), n_dev, reserved, seen)
    held = seen  # every dev/test source
    rng = random.Random(seed * 3)
    lessons = [p for p in LESSON_PAIRS for _ in range(LESSON_COPIES)]
    train: list[Pair] = []
    while len(train) < n_train - len(lessons):
        pair = sample_pair(rng)
        if pair.src in held or pair.src in probe_src:
            continue
        train.append(pair)
    train.extend(lessons[: max(0, n_train - len(train))])
    rng.shuffle(train)
    return Splits(tuple(train), tuple(dev), tuple(test))


# ---- the splits on disk: built once per machine, not once per process ---------------------
# A fresh server (a replica, a test's server) needs the splits behind the autoregressive
# and compression parts and the class poll: ~10-20 s of one core to build, under 1 s to
# read back. The file is named by a hash of this module's source, the seed and the sizes,
# so a change to the grammar can never read an old corpus; it is compact JSON (token ids),
# never pickle, so a file in the cache folder cannot run code. A missing, unreadable or
# damaged file is simply rebuilt; a read-only cache folder only costs the build.
CACHE_ENV = "ROAD_CACHE_DIR"


def cache_dir() -> Path:
    """``$ROAD_CACHE_DIR``, else ``$XDG_CACHE_HOME/road_to_attention`` (~/.cache/...)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "road_to_attention"


def _splits_file(seed: int, sizes: tuple[int, int, int]) -> Path:
    h = hashlib.sha256(Path(__file__).read_bytes())
    h.update(repr((seed, sizes)).encode())
    return cache_dir() / f"splits-{seed}-{h.hexdigest()[:16]}.json.gz"


def _encode(splits: Splits) -> dict:
    ids: dict[str, int] = {}

    def enc(tokens: Sequence[str]) -> list[int]:
        return [ids.setdefault(t, len(ids)) for t in tokens]

    def pair(p: Pair) -> list:
        check = [[i, ids.setdefault(t, len(ids))] for i, t in p.check]
        return [enc(p.src), enc(p.tgt), p.kind, check, [list(kv) for kv in p.info]]

    out = {name: [pair(p) for p in getattr(splits, name)] for name in ("train", "dev", "test")}
    return {"tokens": list(ids), **out}


def _decode(data: dict) -> Splits:
    tokens = data["tokens"]

    def pair(row: list) -> Pair:
        src, tgt, kind, check, info = row
        return Pair(
            tuple(tokens[i] for i in src),
            tuple(tokens[i] for i in tgt),
            kind,
            tuple((i, tokens[t]) for i, t in check),
            tuple((a, b) for a, b in info),
        )

    return Splits(*(tuple(pair(r) for r in data[name]) for name in ("train", "dev", "test")))


def stored_splits(
    seed: int = 1234, n_train: int = 60000, n_dev: int = 1000, n_test: int = 2500
) -> Splits:
    """:func:`build_splits`, read from the cache folder when this exact corpus was built
    before on this machine (see :func:`cache_dir`), built and stored otherwise."""
    sizes = (n_train, n_dev, n_test)
    path = _splits_file(seed, sizes)
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            splits = _decode(json.load(f))
        if (len(splits.train), len(splits.dev), len(splits.test)) == sizes:
            return splits
    except (OSError, ValueError, KeyError, TypeError, IndexError, EOFError):
        pass  # missing or damaged: build it
    splits = build_splits(seed, n_train, n_dev, n_test)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        with gzip.open(tmp, "wt", encoding="utf-8", compresslevel=1) as f:
            json.dump(_encode(splits), f, separators=(",", ":"))
        os.replace(tmp, path)  # atomic: a reader sees the whole file or none
    except OSError:
        pass  # a read-only cache folder: the splits are still built
    return splits


_shared_lock = threading.Lock()
_shared: dict[int, Splits] = {}


def shared_splits(seed: int = 1234) -> Splits:
    """:func:`stored_splits`, read or built once per process and shared read-only by every
    page and the server's warm-up thread (building it twice, or copying it per call as a
    data cache would, costs a class's first visit)."""
    with _shared_lock:  # one build even when a page and the warm-up ask at the same time
        if seed not in _shared:
            if len(_shared) >= 2:
                _shared.clear()
            _shared[seed] = stored_splits(seed)
        return _shared[seed]


# ---------------------------------------------------------------------------------------
# A coreference set for a self-attention encoder: which noun does "it" name?
# ---------------------------------------------------------------------------------------

COREF_SPLIT_SEED = 38  # which (antecedent, predicate) pairs are held out
COREF_HELD_OUT_SHARE = 0.25  # of the pairs, besides the lesson's own two
# the lesson's pair is held out: the encoder never reads a hungry cat or a sweet milk
LESSON_COREF: tuple[tuple[str, str], ...] = (("cat", "hungry"), ("milk", "sweet"))


@dataclass(frozen=True)
class CorefCase:
    """One sentence whose "it" names one of its two nouns, the predicate deciding which."""

    tokens: tuple[str, ...]  # English tokens
    it: int  # index of "it"
    antecedent: int  # index of the noun "it" names
    other: int  # index of the other noun (the wrong answer)
    predicate: str  # the adjective that decides
    reading: str  # "subject" (a state: the animal) or "object" (a quality: the food)


def coref_pair_split(seed: int = COREF_SPLIT_SEED) -> tuple[frozenset, frozenset]:
    """All (antecedent noun, predicate) pairs, split into (training, held-out) sets.

    The held-out set takes a seeded quarter of the pairs of each reading and the lesson's
    own pairs: every held-out sentence puts a predicate with a noun never seen with it.
    """
    rng = random.Random(seed)
    subject = [(a.en, p) for a in _nouns("animal") for p, _ in STATE_PREDS]
    obj = [
        (f.en, p)
        for kind in ("food", "drink")
        for f in _nouns(kind)
        if not f.plural
        for p, _ in _PREDS[kind]
    ]
    held: set[tuple[str, str]] = set(LESSON_COREF)
    for pairs in (subject, obj):
        held |= set(rng.sample(pairs, round(COREF_HELD_OUT_SHARE * len(pairs))))
    everything = set(subject) | set(obj)
    return frozenset(everything - held), frozenset(held)


def coref_case(
    rng: random.Random, allowed: frozenset, reading: str | None = None, plain: bool = False
) -> CorefCase:
    """ "the [black] cat drank the milk [in the kitchen] because it was hungry": a random
    sentence whose (antecedent, predicate) pair is in ``allowed``. Optional adjectives and
    places (unless ``plain``) move the nouns, so position alone cannot tell which is which.
    """
    while True:
        reading_ = reading or rng.choice(("subject", "object"))
        animal = rng.choice(_nouns("animal"))
        kind = rng.choice(("food", "drink"))
        food = rng.choice([x for x in _nouns(kind) if not x.plural])
        preds = STATE_PREDS if reading_ == "subject" else _PREDS[kind]
        pred = rng.choice(preds)[0]
        if ((animal.en if reading_ == "subject" else food.en), pred) in allowed:
            break
    present = rng.random() < 0.25
    verb = "likes" if present else ("ate" if kind == "food" else "drank")
    attr = [] if plain or rng.random() < 0.5 else [rng.choice(_attrs("animal"))[0]]
    place = [] if plain or rng.random() < 0.5 else rng.choice(PLACES)[0].split()
    head = ["the", *attr, animal.en, verb, "the", food.en, *place, "because"]
    tokens = (*head, "it", "is" if present else "was", pred)
    subj_i, obj_i = 1 + len(attr), 4 + len(attr)
    ante, other = (subj_i, obj_i) if reading_ == "subject" else (obj_i, subj_i)
    return CorefCase(tuple(tokens), len(head), ante, other, pred, reading_)


def coref_cases(seed: int, n: int, held_out: bool) -> list[CorefCase]:
    """``n`` distinct seeded cases, half of each reading, from the held-out pairs or from
    the training pairs (:func:`coref_pair_split`)."""
    train, held = coref_pair_split()
    allowed = held if held_out else train
    rng = random.Random(seed)
    out: list[CorefCase] = []
    seen: set[tuple[str, ...]] = set()
    while len(out) < n:
        case = coref_case(rng, allowed, ("subject", "object")[len(out) % 2])
        if case.tokens not in seen:
            seen.add(case.tokens)
            out.append(case)
    return out


def lesson_coref_cases() -> tuple[CorefCase, CorefCase]:
    """The lesson's pair: "the cat drank the milk because it was hungry / sweet"."""
    head = tuple("the cat drank the milk because".split())
    return (
        CorefCase((*head, "it", "was", "hungry"), 6, 1, 4, "hungry", "subject"),
        CorefCase((*head, "it", "was", "sweet"), 6, 4, 1, "sweet", "object"),
    )
