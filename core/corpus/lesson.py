"""The lesson's own example sentences, each written once: the original as the lesson writes
it, one English rendering (as the models read it: lower case, words split, no punctuation)
and one Chinese rendering (words split by spaces; the page joins them).

Every page, chart and catalogue string that quotes one of them takes it from here, so a
sentence cannot drift into a second version. Only ``faithful`` renderings are the lesson's
own words; the one that is not (the autumn cicadas, whose English the models' small
vocabulary cannot say word for word) is called "an English version the models can read" on
screen, never "the lesson's sentence".
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "LessonSentence",
    "WEAR_SHOES",
    "AUTOREGRESSION_PROMPT",
    "HOW_ARE_YOU",
    "WHERE_ARE_YOU",
    "I_LOVE_YOU",
    "BOY_BANANA",
    "CAT_HUNGRY",
    "CAT_SWEET",
    "CICADAS",
    "TRANSLATION_PAIRS",
    "SENTENCES",
    "normalise",
]


@dataclass(frozen=True)
class LessonSentence:
    """One example sentence of the lesson."""

    original: str  # exactly as the lesson writes it (its own language and punctuation)
    lang: str  # the original's language: "en" or "zh"
    en: str  # the one English rendering, as the models read it
    zh: str  # the one Chinese rendering, words split by spaces
    section: str  # where the lesson uses it
    faithful: bool = True  # whether ``en`` says what the lesson says, word for word
    pair: tuple[str, str] = ("", "")  # in ``en``: the two words the lesson links, if any
    pair_zh: tuple[str, str] = ("", "")  # the same two words in ``zh``

    @property
    def en_words(self) -> tuple[str, ...]:
        return tuple(self.en.split())

    @property
    def zh_words(self) -> tuple[str, ...]:
        return tuple(self.zh.split())

    @property
    def zh_text(self) -> str:
        """The Chinese rendering as a reader sees it (words joined, no spaces)."""
        return "".join(self.zh_words)


WEAR_SHOES = LessonSentence(
    original="You should wear shoes",
    lang="en",
    en="you should wear shoes",
    zh="你 应该 穿 鞋",
    section="1.3",
)
"""1.3, autoregression: the model reads "You should", writes "wear", reads "You should wear",
writes "shoes", then the end mark; each step feeds the next."""

AUTOREGRESSION_PROMPT: str = " ".join(WEAR_SHOES.en_words[:2])  # "you should"
"""1.3: the lesson's first round of generation starts from these words of ``WEAR_SHOES``."""

HOW_ARE_YOU = LessonSentence(
    original="how are you",
    lang="en",
    en="how are you",
    zh="你 好 吗",
    section="2.1",
)
"""2.1, alignment: the Chinese (你好吗) does not follow the English word order."""

WHERE_ARE_YOU = LessonSentence(
    original="Where are you",
    lang="en",
    en="where are you",
    zh="你 在 哪里",
    section="2.1",
)
"""2.1, alignment: 你在哪里 puts "where" last; some words have no one-to-one partner."""

I_LOVE_YOU = LessonSentence(
    original="I love you",
    lang="en",
    en="i love you",
    zh="我 爱 你",
    section="2.1",
)
"""2.1, alignment: "我" should come mostly from "I", but a single summary vector gives
I, love and you the same share of every output word."""

BOY_BANANA = LessonSentence(
    original="A boy is eating the banana",
    lang="en",
    en="a boy is eating the banana",
    zh="一 个 男孩 在 吃 香蕉",
    section="3",
)
"""3, opening of attention: translating "boy" needs no knowledge of the whole sentence; not
every part of the input matters equally at each step."""

CAT_HUNGRY = LessonSentence(
    original="The cat drank the milk because it was hungry.",
    lang="en",
    en="the cat drank the milk because it was hungry",
    zh="猫 喝 了 牛奶 因为 猫 饿 了",  # Chinese repeats the noun "it" means
    section="3.1",
    pair=("it", "cat"),
)
"""3.1, self-attention: "it" means the cat, so "it" takes in most of "cat"."""

CAT_SWEET = LessonSentence(
    original="The cat drank the milk because it was sweet.",
    lang="en",
    en="the cat drank the milk because it was sweet",
    zh="猫 喝 了 牛奶 因为 牛奶 很 甜",
    section="3.1",
    pair=("it", "milk"),
)
"""3.1, self-attention: one word changed, and "it" now means the milk."""

CICADAS = LessonSentence(
    original=(
        "秋蝉的衰弱的残声，更是北国的特产；因为北平处处全长着树，屋子又低，"
        "所以无论在什么地方，都听得见它们的啼唱。"
    ),
    lang="zh",
    # The models know 368 English words: no "weak", "specialty", "grow" or "wherever". This
    # keeps the lesson's order, its two far-apart words and the trees and houses that "their"
    # could also mean, in words every model can read.
    en=(
        "the last song of the autumn cicadas is of the north because beiping is full of "
        "trees and the houses are low so you can hear their song everywhere"
    ),
    # The lesson's words, split by hand (punctuation dropped): 秋蝉 and, 26 words later, 它们.
    zh=(
        "秋蝉 的 衰弱 的 残声 更 是 北国 的 特产 因为 北平 处处 全 长着 树 "
        "屋子 又 低 所以 无论 在 什么 地方 都 听得见 它们 的 啼唱"
    ),
    section="2.1, 2.2",
    faithful=False,
    pair=("cicadas", "their"),
    pair_zh=("秋蝉", "它们"),
)
"""2.1, long dependencies (from Yu Dafu's essay "故都的秋"): 它们 ("their") means 秋蝉, the
autumn cicadas, 26 words earlier, not the trees or the houses in between; 2.2 draws the CNN
windows that first hold both words only high up the stack."""

# The lesson's sentences the translation models were trained on (each in the training split),
# in the lesson's order.
TRANSLATION_PAIRS: tuple[LessonSentence, ...] = (
    WEAR_SHOES,
    HOW_ARE_YOU,
    WHERE_ARE_YOU,
    I_LOVE_YOU,
    BOY_BANANA,
    CAT_HUNGRY,
    CAT_SWEET,
)
SENTENCES: tuple[LessonSentence, ...] = (*TRANSLATION_PAIRS, CICADAS)


def normalise(text: str) -> str:
    """Lower case, punctuation and spaces dropped: to compare a shown sentence with an
    original (``"You should wear shoes"`` equals ``"you should wear shoes"``)."""
    return "".join(ch for ch in text.lower() if ch.isalnum())
