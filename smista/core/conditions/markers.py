"""Question and leading-word markers: the data behind the ``question`` and ``leading`` kinds.

Pure; never performs I/O and never decides an intent. Owns the :class:`Markers`
data (interrogative words and openers, question endings, polite-request
openers and endings, greetings and fillers), its built-in defaults for en, ja,
ko, zh, ru, es, pt, fr, de, it, tr, id, vi, sv, pl, uk, th, nl, cs, hu, ar, he,
fa and hi, its reading from a ``[classification.markers]`` table (a key given
replaces that list), and the three readings of a prompt the condition kinds
use: :func:`slash_command`, :func:`content_tokens` and :func:`is_question`.
Everything is read off the tokenizer's lowercased tokens, except slash
commands, @mentions, chat variables and sentence punctuation, which only the
raw text shows.

How a prompt reads:

- A *slash command* is ``/name`` at the very start (after whitespace and any
  @mentions: ``@workspace /explain``); a name followed by ``/`` is a path
  (``/src/app.ts``), not a command.
- *Content* is what follows the slash command, the @mentions before the first
  word, and any greetings, fillers and polite-request openers ("hi", "ok so",
  "can you please", "i want you to"), skipped as whole token sequences.
- *Sentences* end at ``. ! ? 。 ！ ？`` (a ``.`` only before whitespace) and at
  line breaks. A sentence is a *request* when it opens with a request opener
  ("can you", "could you", "please") or ends with a request ending (해줘, 줄래,
  してください, くれますか); it *asks* when it is no request and opens with a
  question word or opener ("why", "how do", "est-ce que"), ends with ``?``,
  ``？`` (or opens with ``¿``), or ends with a question ending (か, 까요, 吗, " mı").
  Where a request marker and a question marker both fit the same end of a
  sentence, the longer one wins ("can you" beats "can"; "くれますか" beats "か";
  "请问" beats "请"), and a tie goes to the request.
- A clause after a comma, semicolon, colon or dash that opens with a request
  opener makes its sentence a request ("it shows the wrong month, can you fix
  that?").
- @mentions and chat variables (``#codebase``, ``#file:app.py``: a ``#`` and a
  letter after whitespace) are blanked before sentences are read: "Where is
  the connection string configured? #codebase" asks.
- The prompt *is a question* when its last sentence (greetings and thanks
  alone do not count) asks and no sentence is a request: "Why is this null?
  Fix it." asks for a fix.

Endings are matched against the sentence's tokens joined by single spaces,
with a space in front: "까요" is a suffix of the last token, while " mi"
(leading space) must be the whole last token, and "r misin" spans two tokens
("yapabilir misin"). Words, openers and fillers written in a script without
spaces (Han, Hiragana, Katakana: a whole clause is one token there) match as a
prefix of the sentence's first token instead of as whole tokens.

With the C extension, :func:`is_question` and :func:`content_tokens` are read in
C (``smista.core._speedups.MarkerTable``, compiled from each :class:`Markers`
object and remembered with it); the Python functions here are the reference it
must agree with (``tests/test_speedups.py`` compares the two).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import NamedTuple

import smista.core._implementation  # noqa: F401  SMISTA_IMPLEMENTATION, read before the try below
from smista.core.conditions.base import PerObject
from smista.core.errors import ConfigError
from smista.core.tokenizer import rust_lower, tokenize

try:  # the optional C readings: the same answers (tests compare them with the ones below)
    from smista.core._speedups import MarkerTable as _MarkerTable
except ImportError:
    _MarkerTable = None  # type: ignore[assignment,misc]

__all__ = [
    "DEFAULT_MARKERS",
    "MARKER_KEYS",
    "Markers",
    "content_tokens",
    "is_question",
    "marker_table",
    "markers_from",
    "slash_command",
]

Opener = tuple[str, ...]


class Markers(NamedTuple):
    """The word lists that tell questions, requests and fillers apart (all lowercased)."""

    question_words: frozenset[str]
    """Single tokens opening a question: what, why, почему, 왜, なぜ (a prefix in Han/Kana)."""
    question_openers: tuple[Opener, ...]
    """Multi-token openers of a question: ("est","ce","que"), ("o","que"), ("tại","sao")."""
    question_endings: tuple[str, ...]
    """Endings of a question sentence: か, 까요, 나요, 吗, " mı" (see the module docstring)."""
    request_openers: tuple[Opener, ...]
    """Openers of a polite request, never a question: ("can","you"), ("please",), ("请",)."""
    fillers: tuple[Opener, ...]
    """Skipped before the leading word: ("hi",), ("ok",), ("so",), ("i","want","you","to")."""
    request_endings: tuple[str, ...] = ()
    """Endings of a polite request, never a question: 해줘, 줄래, してください, くれますか."""


MARKER_KEYS: tuple[str, ...] = (
    "question_words",
    "question_openers",
    "question_endings",
    "request_openers",
    "request_endings",
    "fillers",
)
"""The keys a ``[classification.markers]`` table may hold."""


# --- built-in defaults -------------------------------------------------------------
# One string a line, tokenized like a prompt ("est-ce que" -> ("est", "ce", "que")).

_QUESTION_WORDS = """
what whats wat why how hows where wheres which who whos whom whose
is are does did was were should shall
почему зачем как что где какой какая какое какие каким какую сколько кто чем куда откуда
разве неужели
qué que cómo dónde cuál cuáles cuándo quién quiénes cuánto cuántos cuánta cuántas
donde cual cuales quien quienes
como onde qual quais quem quanto quantos porquê
pourquoi quoi où quel quelle quels quelles combien qui
warum wieso weshalb wie was wo welche welcher welches welchen wer wozu woher wohin
ist sind gibt kann könnte soll sollte muss hast hat
perché perche cosa dove quale quali chi quanto quanti
neden niye niçin nasıl nedir hangi nerede nereden nereye kim kaç
apa apakah kenapa mengapa bagaimana gimana dimana siapa berapa bisakah
sao đâu
varför hur vad vilken vilket vilka vem vems är finns
dlaczego czemu jak jaki jaka jakie jakiego gdzie kiedy który która które kto czy ile skąd dokąd
왜 어떻게 어떤 뭐 뭐가 뭘 무엇 무엇이 무엇을 무슨
어디 어디서 어디에 어디가 어느 누가 누구 몇 얼마나 얼마
なぜ なんで どうして どうやって どうすれば どうしたら
どう どの どこ どれ だれ 誰 何が 何を 何故 なにが なにを
为什么 為什麼 为何 怎么 怎麼 怎样 怎樣 如何 什么 什麼
哪 是否 谁 誰 多少 有没有 有沒有 是不是 请问 請問
为啥 為啥 咋 啥
що як чому навіщо де коли який яка яке які скільки хто чи
كيف لماذا ماذا متى أين اين هل كم أي ماهو ماهي
מה איך למה מדוע האם מתי איפה היכן כמה מי איזה איזו כיצד
waarom hoe waar welke welk wanneer wie
proč jaký jaká jaké který která které kde kdy kolik
miért hogyan hol mikor melyik milyen hány
چرا چطور چگونه آیا کجا چی
क्या कैसे क्यों कहाँ कब कौन
"""

_QUESTION_OPENERS = """
can i
can we
can this
can it
can that
can there
could i
could we
could this
could it
could that
would it
would this
would that
would there
will it
will this
will that
will there
isn t it
isn t there
doesn t it
don t you
shouldn t we
shouldn t it
wouldn t it
comment faire
kan jag
kan vi
kann ich
kann man
puedo
podemos
posso
comment est
comment puis
comment fonctionne
comment ça
comment ca
do i
do we
do you
do they
do these
do those
do my
do the
do all
por qué
por que
o que
por que
será que
est ce que
qu est ce
qu est
peut on
est il
est elle
y a t il
che cosa
ne zaman
ne kadar
di mana
tại sao
vì sao
làm sao
làm thế nào
như thế nào
thế nào
có phải
"""

_QUESTION_ENDINGS = """
か
かな
かしら
까
까요
나요
가요
냐
습니까
吗
嗎
呢
么
麼
 mı
 mi
 mu
 mü
 mısın
 misin
 musun
 müsün
 mısınız
 misiniz
 musunuz
 müsünüz
 mıdır
 midir
 mudur
 müdür
 mıyım
 miyim
 muyum
 müyüm
 nedir
 ne
 gì
 không
 chưa
 thế nào
 sao
 ở đâu
 à
 hả
 nhỉ
 như nào
 apa bisa
 bisa gak
 bisa nggak
 bisa tidak
어때
어때요
방법
있나
없나
되나
됐나
했나
인가
는가
있니
없니
했니
되니
啥
哪一步了
到哪了
には
มั้ย
หรือเปล่า
หรือยัง
"""

_REQUEST_OPENERS = """
can you
could you
would you
will you
can u
could u
would you mind
would you please
please
pls
plz
kindly
i want you to
i need you to
i would like you to
i d like you to
quiero que
necesito que
quero que
preciso que
je veux que tu
j aimerais que tu
ich möchte dass du
vorrei che
jag vill att du
quisiera que
me gustaría que
me gustaria que
gostaria que
je voudrais que tu
ich will dass du
voglio che
пожалуйста
можешь
можете
сможешь
сможете
не мог бы
не могла бы
не могли бы
czy możesz
czy możecie
czy mógłbyś
czy mogłabyś
możesz
możecie
mógłbyś
mogłabyś
proszę
prosze
puedes
podrías
podrias
puede
podría
podria
podés
podes
podrás
podras
por favor
me puedes
me podrías
pode
você pode
voce pode
poderia
você poderia
voce poderia
consegue
você consegue
peux tu
tu peux
vous pouvez
tu pourrais
vous pourriez
pouvez vous
pourrais tu
pourriez vous
s il te plaît
s il vous plaît
s il te plait
s il vous plait
merci de
kannst du
könntest du
können sie
könnten sie
würdest du
würden sie
bitte
puoi
potresti
può
potrebbe
per favore
mi puoi
mi potresti
lütfen
tolong
mohon
bisa tolong
bisa
bisa bantu
tolong bantu
bisa kamu
bisakah kamu
làm ơn
vui lòng
bạn có thể
bạn hãy
hãy
kan du
kan ni
skulle du
kunde du
snälla
var snäll
vänligen
请
請
帮我
幫我
麻烦
麻煩
能不能
能否
可以帮
能帮
能幫
可以幫
你能
你可以
kun je
kunt u
kan je
alsjeblieft
můžeš
můžete
prosím
kérlek
légyszi
תוכל
אתה יכול
בבקשה
هل يمكنك
هل تستطيع
من فضلك
ممكن
لطفا
میشه
"""

_REQUEST_ENDINGS = """
줘
줘요
주세요
줄래
줄래요
줄 수 있어
줄 수 있어요
줄 수 있나요
줄 수 있니
줄 수 있을까
줄 수 있을까요
주실 수 있나요
주실 수 있어요
주실 수 있을까요
주시겠어요
주시겠습니까
주실래요
주겠니
주겠어
부탁해
부탁해요
부탁합니다
부탁드립니다
부탁드려요
ください
下さい
くれ
くれる
くれます
くれますか
くれませんか
くれない
くれないか
もらえる
もらえます
もらえますか
もらえませんか
もらえない
もらえないか
いただけますか
いただけませんか
できますか
できませんか
頂けますか
頂けませんか
ほしい
欲しい
お願い
お願いします
おねがい
 giúp tôi được không
 giúp mình được không
 giúp em được không
r mısın
r misin
r musun
r müsün
r mısınız
r misiniz
r musunuz
r müsünüz
"""

_FILLERS = """
hi
hello
hey
good morning
good afternoon
good evening
good night
nevermind
never mind
nvm
got it
gotcha
understood
hiya
ok
okay
so
now
then
next
also
and
but
great
cool
nice
perfect
excellent
amazing
fantastic
wonderful
brilliant
sorry
oh
ah
oops
wait
for now
in
looks good
sounds good
that works
makes sense
great job
nice work
well done
perfecto
excelente
genial
listo
perfeito
ótimo
otimo
certo
parfait
super
d accord
très bien
perfekt
gut
perfetto
ottimo
va bene
отлично
супер
ладно
harika
süper
peki
evet
mantap
sip
baik
ya
toppen
bra
awesome
good
thanks
thank you
thx
yes
yeah
yep
sure
alright
all right
right
well
hmm
um
no
nope
just
first
actually
let s
lets
help me
go ahead and
i want to
i need to
i would like to
i d like to
we need to
i m trying to
i am trying to
привет
здравствуйте
давай
давайте
теперь
так
ок
окей
хорошо
ну
слушай
спасибо
hola
bueno
vale
ahora
gracias
olá
ola
oi
bom
agora
então
entao
beleza
obrigado
bonjour
salut
alors
maintenant
merci
hallo
jetzt
nun
danke
ciao
salve
allora
ora
adesso
grazie
merhaba
tamam
şimdi
teşekkürler
halo
hai
oke
sekarang
lalu
terus
coba
terima kasih
chào
chào bạn
xin chào
được rồi
bây giờ
cảm ơn
giúp tôi
giúp mình
hej
hallå
okej
nu
så
tack
그럼
이제
자
혹시
그리고
좋아
좋아요
좋습니다
안녕
안녕하세요
네
응
일단
감사합니다
고마워
では
じゃあ
それでは
次に
まず
あと
ありがとう
好的
那么
"""


def _lines(block: str) -> list[str]:
    return [line for line in block.split("\n") if line.strip()]


def _words(entry: str) -> list[str]:
    """``tokenize(entry)`` for marker data, without loading the Unicode tables when the
    entry is letters, digits and spaces only (tests check they agree on the defaults)."""
    if entry.replace(" ", "").isalnum() and "\u0130" not in entry and "\u03a3" not in entry:
        return entry.lower().split()
    return tokenize(entry)


def _openers(entries: Iterable[str]) -> tuple[Opener, ...]:
    out: dict[Opener, None] = {}
    for entry in entries:
        tokens = tuple(_words(entry))
        if tokens:
            out.setdefault(tokens)
    return tuple(out)


def _ending(entry: str) -> str:
    """An ending as compared: its tokens joined by single spaces, one leading space kept.

    Tokenized as the prompt is, so an ending splits where the prompt's text does
    (the Thai "มั้ย" is the tokens "มั", "ย": its tone mark is no letter)."""
    lead = " " if entry[:1].isspace() else ""
    return lead + " ".join(_words(entry))


DEFAULT_MARKERS = Markers(
    question_words=frozenset(w for line in _lines(_QUESTION_WORDS) for w in _words(line)),
    question_openers=_openers(_lines(_QUESTION_OPENERS)),
    question_endings=tuple(dict.fromkeys(_ending(e) for e in _lines(_QUESTION_ENDINGS))),
    request_openers=_openers(_lines(_REQUEST_OPENERS)),
    fillers=_openers(_lines(_FILLERS)),
    request_endings=tuple(dict.fromkeys(_ending(e) for e in _lines(_REQUEST_ENDINGS))),
)
"""Built-in markers for en, ja, ko, zh, ru, es, pt, fr, de, it, tr, id, vi, sv, pl, uk, th, nl, cs,
hu, ar, he, fa and hi."""


# --- reading a [classification.markers] table ---------------------------------------


def markers_from(table: Mapping[str, object] | None) -> Markers:
    """Markers from a ``[classification.markers]`` table; a key given replaces that list.

    Every key holds a list of strings. ``question_words`` entries must be one
    token each; openers and fillers are tokenized like prompts ("est-ce que"),
    endings keep one leading space when written with one (" mi": the whole
    token). ``None`` or an empty table gives :data:`DEFAULT_MARKERS`. Raises
    :class:`~smista.core.errors.ConfigError` naming ``classification.markers.KEY[i]``.
    """
    if table is None:
        return DEFAULT_MARKERS
    base = "classification.markers"
    if not isinstance(table, Mapping):
        raise ConfigError([(base, "expected a table")])
    errors: list[tuple[str, str]] = []
    values: dict[str, list[str]] = {}
    for key, raw in table.items():
        where = f"{base}.{key}"
        if key not in MARKER_KEYS:
            errors.append((where, f"unknown key; expected one of: {', '.join(MARKER_KEYS)}"))
            continue
        if isinstance(raw, str) or not isinstance(raw, Sequence):
            errors.append((where, "expected an array of strings"))
            continue
        items: list[str] = []
        for i, item in enumerate(raw):
            if not isinstance(item, str):
                errors.append((f"{where}[{i}]", "expected a string"))
            elif not tokenize(item):
                errors.append((f"{where}[{i}]", "expected at least one letter or digit"))
            elif key == "question_words" and len(tokenize(item)) != 1:
                errors.append((f"{where}[{i}]", f"expected one word, got {item!r}"))
            else:
                items.append(item)
        values[key] = items
    if errors:
        raise ConfigError(errors)
    d = DEFAULT_MARKERS
    return Markers(
        question_words=(
            frozenset(tokenize(" ".join(values["question_words"])))
            if "question_words" in values
            else d.question_words
        ),
        question_openers=(
            _openers(values["question_openers"])
            if "question_openers" in values
            else d.question_openers
        ),
        question_endings=(
            tuple(dict.fromkeys(_ending(e) for e in values["question_endings"]))
            if "question_endings" in values
            else d.question_endings
        ),
        request_openers=(
            _openers(values["request_openers"])
            if "request_openers" in values
            else d.request_openers
        ),
        fillers=_openers(values["fillers"]) if "fillers" in values else d.fillers,
        request_endings=(
            tuple(dict.fromkeys(_ending(e) for e in values["request_endings"]))
            if "request_endings" in values
            else d.request_endings
        ),
    )


# --- reading a prompt ---------------------------------------------------------------


@cache
def _command() -> re.Pattern[str]:
    """A slash command's name (compiled on first use: most prompts have none)."""
    return re.compile(r"([^\W_][\w:.\-]*)")


@cache
def _mention() -> re.Pattern[str]:
    """An @mention (compiled on first use: most prompts have none)."""
    return re.compile(r"(?:^|(?<=\s))@\S*")


@cache
def _variable() -> re.Pattern[str]:
    """An @mention or a chat variable such as Copilot's ``#codebase`` or ``#file:app.py``
    (compiled on first use: most prompts have neither)."""
    return re.compile(r"(?:^|(?<=\s))(?:@\S*|#[^\W\d_]\S*)")


@cache
def _leading_mentions() -> re.Pattern[str]:
    """Whitespace and @mentions at the start (it always matches; compiled on first use)."""
    return re.compile(r"\s*(?:@\S+\s+)*")


_SENTENCE_END = r"[?!？！。]+|\.(?=\s|$)|\n"
"""Where a sentence ends (compiled only inside :func:`_sentence_split`)."""
_CLOSERS = "\"'”’»)]}>*_`~ \t\r\n"
_QUESTION_MARKS = ("?", "？", "؟")


@cache
def _clause() -> re.Pattern[str]:
    """Where a clause ends (compiled on first use: only questions are cut in clauses)."""
    return re.compile(r"[,;:，；：]|\s[-–—]\s")


def _split_command(text: str) -> tuple[str | None, str]:
    """``(command name, text after it)``; the name is lowercased, or None.

    @mentions before the command are skipped (Copilot's ``@workspace /explain``).
    """
    head = text[:1]
    if head not in ("/", "@") and not head.isspace():
        return None, text  # (most prompts: no copy of the text is made)
    stripped = text.lstrip()  # (what the pattern's \s* strips: the same characters)
    if stripped.startswith("@"):
        stripped = text[_leading_mentions().match(text).end() :]  # type: ignore[union-attr]
    match = _command().match(stripped, 1) if stripped.startswith("/") else None
    if match is None:
        return None, text
    after = stripped[match.end() :]
    if after.startswith(("/", "\\")):
        return None, text  # a path such as /src/app.ts
    name = match.group(1).rstrip(".:-")
    return rust_lower(name), stripped[1 + len(name) :]


def slash_command(text: str) -> str | None:
    """``'/git:commit foo'`` -> ``'git:commit'`` (lowercased); None without a command."""
    head = text[:1]
    if head not in ("/", "@") and not head.isspace():
        return None  # (most prompts: _split_command's first answer, without its call)
    return _split_command(text)[0]


@cache
def _no_space_script(ch: str) -> bool:
    """Han, Hiragana and Katakana: scripts written without spaces between words."""
    name = unicodedata.name(ch, "")
    return name.startswith(("CJK ", "HIRAGANA", "KATAKANA"))


def _is_no_space(word: str) -> bool:
    return bool(word) and _no_space_script(word[0])


class _OpenerIndex:
    """Openers grouped by first token (and the prefix words of no-space scripts)."""

    __slots__ = ("by_first", "prefix_lengths", "prefixes")

    def __init__(self, openers: Iterable[Opener]) -> None:
        by_first: dict[str, list[Opener]] = {}
        prefixes: set[str] = set()
        for opener in openers:
            if not opener:
                continue
            by_first.setdefault(opener[0], []).append(opener)
            if len(opener) == 1 and _is_no_space(opener[0]):
                prefixes.add(opener[0])
        self.by_first = {k: tuple(v) for k, v in by_first.items()}
        self.prefixes = frozenset(prefixes)
        self.prefix_lengths = tuple(sorted({len(p) for p in prefixes}, reverse=True))


_index: PerObject[tuple[Opener, ...], _OpenerIndex] = PerObject(_OpenerIndex, 256)
"""The index of an opener tuple."""


def _opener_at(tokens: Sequence[str], i: int, openers: tuple[Opener, ...]) -> int:
    """Length in characters of the longest opener at ``tokens[i]`` (0 when none)."""
    if i >= len(tokens):
        return 0
    index = _index(openers)
    token = tokens[i]
    best = 0
    for opener in index.by_first.get(token, ()):
        if tuple(tokens[i : i + len(opener)]) == opener:
            best = max(best, len(" ".join(opener)))
    if index.prefixes and _is_no_space(token):
        for n in index.prefix_lengths:
            if n <= best:
                break
            if token[:n] in index.prefixes:
                best = n
                break
    return best


def _whole_opener(tokens: Sequence[str], i: int, openers: tuple[Opener, ...]) -> int:
    """Tokens of the longest opener that is whole tokens at ``tokens[i]`` (``i`` in range)."""
    best = 0
    for opener in _index.get(openers).by_first.get(tokens[i], ()):
        if len(opener) > best and tuple(tokens[i : i + len(opener)]) == opener:
            best = len(opener)
    return best


def _skip(tokens: Sequence[str], i: int, openers: tuple[Opener, ...]) -> int:
    """Index of the first token from ``i`` that no sequence of ``openers`` covers."""
    while i < len(tokens):
        step = _whole_opener(tokens, i, openers)
        if not step:
            break
        i += step
    return i


def _strip_leading_mentions(text: str) -> list[tuple[str, bool]]:
    """Tokens of ``text`` each flagged True when it belongs to an @mention."""
    out: list[tuple[str, bool]] = []
    start = 0
    for match in _mention().finditer(text):
        out += [(tok, False) for tok in tokenize(text[start : match.start()])]
        out += [(tok, True) for tok in tokenize(match.group())]
        start = match.end()
    out += [(tok, False) for tok in tokenize(text[start:])]
    return out


def _openers_of(markers: Markers) -> tuple[tuple[Opener, ...], tuple[Opener, ...]]:
    """The openers ``markers`` implies.

    First the fillers and request openers skipped before the leading word,
    then the question words as one-token openers followed by the multi-token
    question openers.
    """
    skipping = markers.fillers + markers.request_openers
    asking = (*((w,) for w in sorted(markers.question_words)), *markers.question_openers)
    return skipping, asking


_marker_openers: PerObject[Markers, tuple[tuple[Opener, ...], tuple[Opener, ...]]] = PerObject(
    _openers_of, 64
)
""":func:`_openers_of`, remembered per markers object."""


def content_tokens(text: str, markers: Markers, limit: int | None = None) -> tuple[str, ...]:
    """The prompt's tokens from its first content word on (the first ``limit`` of them).

    Skips a leading slash command, then any mix of @mentions, fillers and
    polite-request openers before the first other word. Later mentions stay.
    With a ``limit``, a long text is first read from its head only: cutting a
    text can change only its last token, so the head's answer stands whenever
    that token lies past every opener the skipping could look at and past the
    ``limit`` content tokens.
    """
    table = _c_table.get(markers) if _MarkerTable is not None else None
    if table is not None and (limit is None or (type(limit) is int and 0 <= limit <= _C_LIMIT)):
        # the whole prompt, else what follows its command
        found = table.content(text, -1 if limit is None else limit, True)
        if found is None:
            found = table.content(_split_command(text)[1], -1 if limit is None else limit, False)
        if found is not None:
            return found
    return _content_tokens(text, markers, limit)


_C_LIMIT = (1 << 31) - 1
"""Largest ``limit`` the C table is given, a C ``Py_ssize_t`` on every build (a negative
one slices from the end, and an int-like object is not an ``int``: Python decides both)."""


def _content_tokens(text: str, markers: Markers, limit: int | None) -> tuple[str, ...]:
    """:func:`content_tokens` in Python (the C table's reference)."""
    if limit is not None and len(text) > _HEAD:
        skipping = _marker_openers(markers)[0]
        start, words = _content_start(text[:_HEAD], skipping)
        if len(words) - 1 >= start + max(limit, _longest(skipping)):
            return tuple(words[start : start + limit])
    start, words = _content_start(text, _marker_openers(markers)[0])
    return tuple(words[start:]) if limit is None else tuple(words[start : start + limit])


_HEAD = 160
"""Characters :func:`content_tokens` first reads of a long text when given a limit."""


def _content_start(text: str, skipping: tuple[Opener, ...]) -> tuple[int, list[str]]:
    """The tokens of ``text`` after its command, and where its first content word is."""
    _, rest = _split_command(text)
    if "@" not in rest:  # no mention to step over
        words = tokenize(rest)
        return _skip(words, 0, skipping), words
    flagged = _strip_leading_mentions(rest)
    words = [tok for tok, _ in flagged]
    i = 0
    while i < len(flagged):
        if flagged[i][1]:
            i += 1
            continue
        step = _whole_opener(words, i, skipping)
        if not step or any(mention for _, mention in flagged[i : i + step]):
            break
        i += step
    return i, words


def _longest_of(openers: tuple[Opener, ...]) -> int:
    """Tokens of the longest of ``openers``."""
    return max(map(len, openers), default=0)


_longest: PerObject[tuple[Opener, ...], int] = PerObject(_longest_of, 256)
""":func:`_longest_of`, remembered per opener tuple."""


def _ending_at(joined: str, endings: tuple[str, ...]) -> int:
    if not joined.endswith(endings):
        return 0
    best = 0
    for ending in endings:
        if len(ending) > best and joined.endswith(ending):
            best = len(ending)
    return best


def _sentence_kind(raw: str, markers: Markers, *, asking: bool = False) -> str:
    """``'request'``, ``'question'``, ``''`` (a statement) or ``'empty'`` (fillers only).

    With ``asking``, a sentence with no sign of a question (no question opener,
    ending or mark) is ``''`` at once: the caller only tells questions apart.
    """
    tokens = tokenize(raw)
    head = _skip(tokens, 0, markers.fillers)
    if head >= len(tokens):  # fillers alone ask when marked: "?", "ok?"
        return "question" if raw.rstrip(_CLOSERS).endswith(_QUESTION_MARKS) else "empty"
    question_openers = _marker_openers(markers)[1]
    asks_open = _opener_at(tokens, head, question_openers)
    joined = " " + " ".join(tokens)
    asks_end = _ending_at(joined, markers.question_endings)
    marked = raw.rstrip(_CLOSERS).endswith(_QUESTION_MARKS) or raw.lstrip().startswith("¿")
    if asking and not (asks_open or asks_end or marked):
        return ""
    requests_open = _opener_at(tokens, head, markers.request_openers)
    requests_end = _ending_at(joined, markers.request_endings)
    if requests_open and requests_open >= asks_open:
        return "request"
    if requests_end and requests_end >= asks_end:
        return "request"
    for clause in _clause().split(raw)[1:]:
        words = tokenize(clause)
        at = _skip(words, 0, markers.fillers)
        if _opener_at(words, at, markers.request_openers) > _opener_at(words, at, question_openers):
            return "request"  # "the date picker is wrong, can you fix that?"
    if asks_open or asks_end or marked:
        return "question"
    return ""


# The same matches; the leading look-ahead lets the regex engine skip to the
# next end-mark character instead of trying each alternative at every position.
@cache
def _sentence_split() -> re.Pattern[str]:
    """The sentence ends, captured (compiled on first use: the C path reads sentences itself)."""
    return re.compile(rf"((?=[?!？！。\n.])(?:{_SENTENCE_END}))")


def _sentences(text: str) -> list[str]:
    """The non-blank sentences of ``text``, each with the marks that end it."""
    # [text, end, text, end, ..., text]: one C pass (the pattern never matches empty)
    parts = _sentence_split().split(text)
    out = [parts[i] + parts[i + 1] for i in range(0, len(parts) - 1, 2)]
    out.append(parts[-1])
    return [s for s in out if not s.isspace() and s]


_TAIL = 256
"""Characters of a long text :func:`is_question` first reads its last sentences from."""


def is_question(text: str, markers: Markers) -> bool:
    """Whether the prompt asks a question rather than requesting work.

    True when the last sentence asks and no sentence is a polite request (see
    the module docstring); "can you fix this?" and "修正してくれますか" are not
    questions, "how do I…", "…ですか", "…까요?" and "почему…" are.
    """
    table = _c_table.get(markers) if _MarkerTable is not None else None
    if table is not None:  # the whole prompt when it holds no command or mention
        found = table.is_question(text, True)
        if found is not None:
            return found
    rest = _question_text(text)
    if table is not None:
        found = table.is_question(rest, False)
        if found is not None:
            return found
    return _is_question(rest, markers)


def _question_text(text: str) -> str:
    """The text :func:`is_question` reads: after the slash command, with @mentions and
    ``#variables`` blanked."""
    _, rest = _split_command(text)
    if "@" in rest or "#" in rest:
        rest = _variable().sub(" ", rest)
    return rest


def _is_question(rest: str, markers: Markers) -> bool:
    """:func:`is_question` in Python, of the text after the command with mentions blanked
    (the C table's reference)."""
    # Read from the last sentence back: most prompts end in a statement or a
    # request, which settles the answer without reading the others. A long
    # text's last sentences are first read from its tail: every sentence there
    # but the first (which the cut may have shortened) is one of the text's.
    if len(rest) > _TAIL:
        for sentence in reversed(_sentences(rest[-_TAIL:])[1:]):
            kind = _sentence_kind(sentence, markers, asking=True)
            if kind == "empty":
                continue
            if kind != "question":
                return False
            break  # a question: the earlier sentences decide, read them all
    sentences = _sentences(rest)
    last = len(sentences)
    while last:
        last -= 1
        kind = _sentence_kind(sentences[last], markers, asking=True)
        if kind == "empty":
            continue
        if kind != "question":
            return False
        return all(_sentence_kind(s, markers) != "request" for s in sentences[:last])
    return False


# --- the C readings -----------------------------------------------------------------


def _plain_openers(openers: object) -> bool:
    return type(openers) is tuple and all(
        type(o) is tuple and all(type(t) is str for t in o) for o in openers
    )


def _plain_strings(strings: object, kind: type[tuple[str, ...] | frozenset[str]]) -> bool:
    return type(strings) is kind and all(type(s) is str for s in strings)


def _build_c_table(markers: Markers) -> _MarkerTable | None:
    """The C extension's table of ``markers``, or None when the extension is not built
    or the markers are not the plain tuples and strings :class:`Markers` holds (the
    Python path decides then)."""
    if _MarkerTable is None or not (
        _plain_openers(markers.fillers)
        and _plain_openers(markers.request_openers)
        and _plain_openers(markers.question_openers)
        and _plain_strings(markers.question_words, frozenset)
        and _plain_strings(markers.question_endings, tuple)
        and _plain_strings(markers.request_endings, tuple)
    ):
        return None
    skipping, asking = _marker_openers(markers)
    return _MarkerTable(
        fillers=markers.fillers,
        skipping=skipping,
        requests=markers.request_openers,
        asking=asking,
        request_prefixes=tuple(_index(markers.request_openers).prefixes),
        asking_prefixes=tuple(_index(asking).prefixes),
        question_endings=markers.question_endings,
        request_endings=markers.request_endings,
        no_space=_no_space_script,
    )


_c_table: PerObject[Markers, _MarkerTable | None] = PerObject(_build_c_table, 64)
""":func:`_build_c_table`, remembered per markers object."""


def marker_table(markers: Markers) -> _MarkerTable | None:
    """The C table :func:`is_question` and :func:`content_tokens` read ``markers``
    through (``None`` without the extension, or for markers it cannot hold)."""
    return _c_table.get(markers) if _MarkerTable is not None else None
