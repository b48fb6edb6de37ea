"""The words of the synthetic grammar: the sentence record, the lesson's own pairs and the
word tables (nouns, verbs, pronouns, adjectives, places, times, senses, the long-range
example's phrases), each English entry beside its Chinese.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.corpus import lesson

__all__ = [
    "Pair",
    "KINDS",
    "LESSON_PAIRS",
    "Noun",
    "NOUNS",
    "Verb",
    "VERBS",
    "PRONOUNS",
    "POSSESSIVES",
    "ATTRS",
    "STATE_PREDS",
    "FOOD_PREDS",
    "DRINK_PREDS",
    "THING_PREDS",
    "PLACES",
    "TIMES",
    "CONNECTIVES",
    "SHORT",
    "SENSES",
    "SENSE_NEUTRAL",
    "SENSE_CONTEXT",
    "SENSE_INTERNAL",
    "LONG_SINGERS",
    "LONG_TREES",
    "LONG_INTROS",
    "LONG_TAILS",
    "LONG_FILLER",
]

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


def _pair(en: str, zh: str, kind: str, **probe) -> Pair:
    """A pair from space-separated tokens; ``probe``: its ``check`` and ``info``."""
    return Pair(tuple(en.split()), tuple(zh.split()), kind, **probe)


# The lesson's sentences the translation models learn (``core.corpus.lesson``); the "it"
# pair carries the Chinese word that tells which noun "it" means.
_IT_CHECKS = {
    lesson.CAT_HUNGRY: {"check": ((5, "猫"),), "info": (("reading", "subject"),)},
    lesson.CAT_SWEET: {"check": ((5, "牛奶"),), "info": (("reading", "object"),)},
}
LESSON_PAIRS: tuple[Pair, ...] = tuple(
    _pair(s.en, s.zh, "lesson", **_IT_CHECKS.get(s, {})) for s in lesson.TRANSLATION_PAIRS
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
