"""Question, request and leading-word markers: slash commands, content words, questions."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from smista.core.conditions.markers import (
    DEFAULT_MARKERS,
    MARKER_KEYS,
    content_tokens,
    is_question,
    markers_from,
    slash_command,
)
from smista.core.errors import ConfigError
from smista.core.tokenizer import tokenize

M = DEFAULT_MARKERS

QUESTIONS = {
    "en": [
        "how do I run the tests",
        "what does this function do?",
        "why is the build so slow",
        "where is rate limiting implemented in our API?",
        "When was the most recent release?",
        "is taiwan a country",
        "can I use local LLMs with this?",
        "do we need a migration for this",
        "which of these two approaches is faster?",
        "so what does the retry loop do",
        "The build fails with exit code 2. Why?",
    ],
    "ja": [
        "このコードは何ですか",
        "どうやって動かせば良い？",
        "なぜこのテストは失敗するのでしょうか",
        "この関数は安全ですか",
    ],
    "ko": [
        "이 함수는 무엇을 하나요?",
        "왜 빌드가 실패해?",
        "어떻게 나누면 좋을까?",
        "이 코드 괜찮을까요",
    ],
    "zh": ["这个函数是做什么的吗", "为什么测试失败了", "请问这个怎么用", "这样写对吗？"],
    "ru": ["почему не работает сборка", "как запустить тесты", "что делает эта функция?"],
    "es": ["¿Cómo puedo filtrar productos", "por qué falla la compilación", "qué hace esto"],
    "pt": ["como iniciar uma aplicacao node.js?", "o que faz essa função", "por que falha"],
    "fr": ["pourquoi le build échoue", "est-ce que ça marche", "comment faire un rebase"],
    "de": ["warum schlägt der Build fehl", "wie starte ich die Tests", "gibt es dafür eine API"],
    "it": ["perché il build fallisce", "cosa fa questa funzione", "che cosa significa"],
    "tr": ["bu fonksiyon doğru mu?", "neden derleme başarısız", "bu nedir", "test geçti mi"],
    "id": ["kenapa build gagal", "bagaimana cara menjalankan tes", "apa fungsi ini"],
    "vi": ["tại sao build bị lỗi", "cái này là gì", "code này chạy được không"],
    "sv": ["varför misslyckas bygget", "hur kör jag testerna", "vad gör den här funktionen"],
    "pl": ["dlaczego build się nie udaje", "jak uruchomić testy", "czy ta funkcja działa"],
    "uk": ["Що таке бухгалтерська звітність", "як запустити тести", "чому не працює збірка"],
    "th": ["ทำเสร็จแล้วใช่มั้ย", "ใช้ได้หรือเปล่า", "รันเทสต์หรือยัง"],
}

NOT_QUESTIONS = {
    "en": [
        "can you fix the login bug?",
        "Could you add tests for the parser?",
        "please explain this function",
        "Would you mind renaming the variable?",
        "Hello! Can you tell me what files are in this directory?",
        "fix the failing test",
        "Add a function calculate_average to utils.py",
        "can't log in after the update",
        "doesn't compile anymore",
        "comment out the debug lines",
        "When I run the tests they fail.",
        "",
        "   ",
    ],
    "ja": [
        "修正してください",
        "直して",
        "修正してくれますか",
        "確認してもらえますか？",
        "何押しても動かない",
        "ブラウザで動くテトリスを作ってほしい。",
    ],
    "ko": [
        "수정해줘",
        "수정해 주세요",
        "이 버그 고쳐줄래?",
        "테스트를 추가해 줄 수 있어?",
        "코드를 검토해 주실 수 있나요?",
        "지금 내가 만들고 있는 홈페이지를 확인해줘",
    ],
    "zh": ["请帮我修复这个bug？", "帮我写一个函数", "你能重构这段代码吗？"],
    "ru": ["пожалуйста, исправь ошибку", "можешь добавить тесты?", "исправь сборку"],
    "es": ["¿puedes arreglar el error?", "por favor añade pruebas", "arregla el test"],
    "pt": ["você pode corrigir o erro?", "pode me explicar o sistema?", "corrija o teste"],
    "fr": ["peux-tu corriger le bug ?", "s'il vous plaît ajoutez des tests"],
    "de": ["kannst du den Fehler beheben?", "bitte füge Tests hinzu", "behebe den Fehler"],
    "it": ["puoi correggere il bug?", "per favore aggiungi dei test"],
    "tr": ["bunu düzeltebilir misin?", "lütfen testleri ekle", "hatayı düzelt"],
    "id": ["tolong buatkan navbar yang bagus", "bisakah kamu memperbaiki ini?"],
    "vi": ["bạn có thể sửa lỗi này không?", "hãy sửa lỗi này", "làm ơn thêm test"],
    "sv": ["kan du fixa buggen?", "snälla lägg till tester", "fixa buggen"],
    "pl": ["czy możesz naprawić ten błąd?", "proszę dodaj testy", "napraw ten błąd"],
    "uk": ["виправ помилку", "додай тести до парсера"],
    "th": ["ช่วยแก้บั๊กนี้", "เพิ่มเทสต์ให้หน่อย", "เพิ่มปุ่มแจ้งเหตุไฟไหม้"],
}


def _cases(table: dict[str, list[str]]) -> list[tuple[str, str]]:
    return [(lang, text) for lang, texts in table.items() for text in texts]


@pytest.mark.parametrize(("lang", "text"), _cases(QUESTIONS))
def test_questions_are_questions(lang: str, text: str) -> None:
    assert is_question(text, M), (lang, text)


@pytest.mark.parametrize(("lang", "text"), _cases(NOT_QUESTIONS))
def test_requests_and_statements_are_not_questions(lang: str, text: str) -> None:
    assert not is_question(text, M), (lang, text)


def test_defaults_cover_every_listed_language() -> None:
    assert set(QUESTIONS) == set(NOT_QUESTIONS) == {
        "en", "ja", "ko", "zh", "ru", "es", "pt", "fr", "de", "it", "tr", "id", "vi", "sv", "pl",
        "uk", "th",
    }  # fmt: skip


def test_a_request_anywhere_makes_the_prompt_no_question() -> None:
    assert is_question("Why does it crash on load?", M)
    assert not is_question("Why does it crash on load? Please fix it.", M)
    assert not is_question("I get an error. Can you fix it?", M)
    assert not is_question("Please help. Why does it crash?", M)


def test_the_last_sentence_decides() -> None:
    assert not is_question("Why is this null? fix it so it doesn't crash", M)
    assert is_question("The build fails with exit code 2. Why?", M)
    assert is_question("What does this function do? Thanks!", M)  # thanks alone: no sentence
    assert is_question("?", M)
    assert is_question("ok?", M)
    assert not is_question("ok.", M)


def test_a_request_clause_after_a_comma_is_a_request() -> None:
    assert not is_question("the date picker shows the wrong month, can you fix that?", M)
    assert not is_question("it fails on windows; could you look into it?", M)
    assert is_question("if the cache is cold, how long does a build take?", M)


def test_question_after_a_slash_command_and_mentions() -> None:
    assert is_question("/help can i use local LLMs?", M)
    assert is_question("@workspace how is auth wired up", M)
    assert not is_question("/code add a factorial function", M)


def test_chat_variables_are_blanked_like_mentions() -> None:
    """Copilot's #codebase and #file:x after a question do not end the prompt."""
    assert is_question("Where is the connection string configured? #codebase", M)
    assert is_question("#file:a.js #file:b.js how are these files related", M)
    assert not is_question("Fix the parser. #codebase", M)
    assert is_question("is #1 the winner?", M)  # "#1" is no variable, and asks anyway
    assert not is_question("# Why\nAdd a retry.", M)  # a heading is no variable


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("/git:commit", "git:commit"),
        ("/git:commit foo", "git:commit"),
        ("  /Ask how does it work", "ask"),
        ("/check-prompt --fix", "check-prompt"),
        ("/run pytest -q", "run"),
        ("/help.", "help"),
        ("/src/app.ts explain this", None),
        ("/", None),
        ("/ run", None),
        ("/_private", None),
        ("run /tests", None),
        ("@cline /newtask", "newtask"),
        ("@workspace @terminal /explain how auth works", "explain"),
        ("@workspace how does /login work", None),
        ("explain", None),
    ],
)
def test_slash_command(text: str, name: str | None) -> None:
    assert slash_command(text) == name


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("Add a function calculate_average", ("add", "a")),
        ("can you please fix the login bug?", ("fix", "the")),
        ("Hi! Could you add tests", ("add", "tests")),
        ("ok, so now refactor it", ("refactor", "it")),
        ("I want you to write a parser", ("write", "a")),
        ("I'm trying to implement auth with this API", ("implement", "auth")),
        ("Help me write tests for the function", ("write", "tests")),
        ("@claude Review this PR", ("review", "this")),
        ("@workspace @terminal find the largest file", ("find", "the")),
        ("/code ok, do that", ("do", "that")),
        ("/ask why is it slow", ("why", "is")),
        ("hey @cline fix the bug", ("fix", "the")),
        ("No, put it below the bar.", ("put", "it")),
        ("Thanks. Now add tests", ("add", "tests")),
        ("좋아 우리가 작성한 문서를 바탕으로", ("우리가", "작성한")),
        ("ok, verifique se a parte", ("verifique", "se")),
        ("Chào bạn, đây là mã nguồn", ("đây", "là")),
        ("пожалуйста, исправь ошибку", ("исправь", "ошибку")),
        ("bitte behebe den Fehler", ("behebe", "den")),
        ("tolong buatkan saya navbar", ("buatkan", "saya")),
    ],
)
def test_content_tokens_skip_commands_mentions_greetings_and_fillers(
    text: str, first: tuple[str, ...]
) -> None:
    assert content_tokens(text, M)[: len(first)] == first


def test_content_tokens_keep_later_mentions_and_stop_at_the_first_content_word() -> None:
    assert content_tokens("explain @auth.py please", M) == ("explain", "auth", "py", "please")
    assert content_tokens("Hello!", M) == ()
    assert content_tokens("", M) == ()


def test_no_space_scripts_match_openers_as_prefixes() -> None:
    assert is_question("为什么测试失败了", M)
    assert not is_question("请修复这个测试", M)
    assert is_question("请问怎么运行测试", M)  # 请问 (may I ask) beats 请 (please)


def test_latin_endings_with_a_leading_space_need_a_whole_token() -> None:
    assert is_question("derleme tamam mı", M)
    assert not is_question("bu adamı", M)  # ends in "mı" but is no particle


def test_markers_from_none_and_empty_give_the_defaults() -> None:
    assert markers_from(None) is DEFAULT_MARKERS
    assert markers_from({}) == DEFAULT_MARKERS


def test_markers_from_replaces_only_the_given_lists() -> None:
    custom = markers_from({"question_words": ["quid"], "request_openers": ["fac ut", "Amabo Te"]})
    assert custom.question_words == frozenset({"quid"})
    assert custom.request_openers == (("fac", "ut"), ("amabo", "te"))
    assert custom.fillers == DEFAULT_MARKERS.fillers
    assert custom.question_endings == DEFAULT_MARKERS.question_endings
    assert is_question("quid est", custom)
    assert not is_question("why is it slow", custom)
    assert not is_question("amabo te, quid est?", custom)


def test_markers_from_keeps_a_leading_space_on_endings() -> None:
    custom = markers_from({"question_endings": [" Ne", "ka"], "request_endings": ["nasai"]})
    assert custom.question_endings == (" ne", "ka")
    assert custom.request_endings == ("nasai",)
    assert is_question("kore wa ne", custom)
    assert not is_question("kore wa one", custom)
    assert is_question("desu ka", custom)


@pytest.mark.parametrize(
    ("table", "where"),
    [
        ({"question_word": ["why"]}, "classification.markers.question_word"),
        ({"fillers": "ok"}, "classification.markers.fillers"),
        ({"fillers": ["ok", 3]}, "classification.markers.fillers[1]"),
        ({"fillers": ["ok", "..."]}, "classification.markers.fillers[1]"),
        ({"question_words": ["how come"]}, "classification.markers.question_words[0]"),
    ],
)
def test_markers_from_rejects_bad_tables_naming_the_key(
    table: dict[str, object], where: str
) -> None:
    with pytest.raises(ConfigError) as info:
        markers_from(table)
    assert [loc for loc, _ in info.value.errors] == [where]


def test_every_marker_key_is_accepted() -> None:
    table: dict[str, object] = {key: ["x"] for key in MARKER_KEYS}
    markers = markers_from(table)
    assert markers.question_words == frozenset({"x"})
    assert markers.fillers == (("x",),)


_TEXT = st.text(
    alphabet=st.sampled_from([*"abc xyz?!.,;'\n\t-_", "为", "吗", "까", "요", "か", "@"]),
    max_size=40,
)
_WORDS = st.lists(st.sampled_from(["how", "fix", "the", "bug", "why", "it", "x1"]), max_size=6)


@given(_TEXT)
def test_is_question_is_deterministic_and_ignores_trailing_whitespace(text: str) -> None:
    assert is_question(text, M) == is_question(text, M)
    assert is_question(text + " \n\t ", M) == is_question(text, M)


@given(_TEXT)
def test_content_tokens_are_a_suffix_of_the_tokens_without_command_or_mention(
    text: str,
) -> None:
    plain = text.replace("@", " ").replace("/", " ")
    tokens = tuple(tokenize(plain))
    content = content_tokens(plain, M)
    assert tokens[len(tokens) - len(content) :] == content


@given(_WORDS, st.sampled_from(["run", "git:commit", "ask"]))
def test_a_slash_command_is_read_and_skipped(words: list[str], name: str) -> None:
    text = f"/{name} " + " ".join(words)
    assert slash_command(text) == name
    assert content_tokens(text, M) == content_tokens(" ".join(words), M)


@given(_WORDS)
def test_a_polite_request_opener_is_never_a_question(words: list[str]) -> None:
    assert not is_question("can you " + " ".join(words) + "?", M)


def test_endings_are_tokenized_as_the_prompt_is() -> None:
    """A Thai tone mark is no letter: "มั้ย" is the tokens "มั", "ย", and so is the ending."""
    assert tokenize("มั้ย") == ["มั", "ย"]
    assert "มั ย" in M.question_endings
    assert markers_from({"question_endings": ["มั้ย"]}).question_endings == ("มั ย",)
    assert is_question("ทำเสร็จเเล้วใช่มั้ย", M)


@pytest.mark.parametrize("text", ["good morning!", "nevermind", "ok, got it", "understood, thanks"])
def test_acknowledgements_have_no_content(text: str) -> None:
    assert content_tokens(text, M) == ()


def test_marker_data_is_split_as_the_tokenizer_would() -> None:
    """The import-time fast split of the built-in marker lists equals tokenize()."""
    from smista.core.conditions import markers as m
    from smista.core.tokenizer import tokenize

    blocks = [
        v for k, v in vars(m).items() if k.isupper() and k.startswith("_") and isinstance(v, str)
    ]
    assert blocks
    for block in blocks:
        for line in m._lines(block):
            assert m._words(line) == tokenize(line), line


def test_markers_from_a_non_table_names_the_table() -> None:
    """A caller passing something other than a table gets a ConfigError, not a traceback."""
    with pytest.raises(ConfigError) as err:
        markers_from(["question_words"])  # type: ignore[arg-type]
    assert err.value.errors == [("classification.markers", "expected a table")]


@pytest.mark.parametrize("text", ["能不能 帮我修复这个", "能不能帮我修复这个"])
def test_a_no_space_request_opener_reads_alike_whole_or_as_a_prefix(text: str) -> None:
    """'能不能' opens a request whether it is its own token or starts a longer one."""
    assert not is_question(text, DEFAULT_MARKERS)
    assert is_question(text.replace("能不能", "请问"), DEFAULT_MARKERS)


def test_many_marker_sets_each_keep_their_own_question_words() -> None:
    """Past the remembered-openers bound (64 sets) every set still answers with its own words."""
    sets = [markers_from({"question_words": [f"qw{i}"]}) for i in range(70)]
    for i, markers in enumerate(sets):
        assert is_question(f"qw{i} this works", markers)
        assert not is_question(f"qw{i + 1} this works", markers)


def test_an_empty_opener_in_hand_built_markers_is_ignored() -> None:
    """Markers built in Python (not through markers_from) may hold an empty opener: it never matches."""
    markers = DEFAULT_MARKERS._replace(request_openers=((), ("please",)))
    assert not is_question("please explain the cache", markers)
    assert is_question("what is the cache", markers)


_PIECES = st.sampled_from(
    ["hi", "please", "can you", "@agent", "@src/app.py", "ok", "fix", "the", "bug", "Σ", "why"]
)


@given(
    st.sampled_from(["", "/ask ", "/code ", "@ws /explain "]),
    st.lists(_PIECES, max_size=90).map(" ".join),
    st.integers(1, 5),
)
def test_a_limited_read_of_a_long_text_gives_the_head_of_the_full_answer(
    command: str, body: str, limit: int
) -> None:
    """content_tokens(text, M, limit) reads only the head of a long text when that
    settles it: the answer is always the full answer's first ``limit`` tokens."""
    text = command + body
    assert content_tokens(text, M, limit) == content_tokens(text, M)[:limit]


def _plain_is_question(text: str) -> bool:
    """is_question restated: every sentence's kind, then the rule on the list."""
    from smista.core.conditions.markers import _sentence_kind, _sentences, _split_command

    _, rest = _split_command(text)
    # mentions and chat variables: a word after whitespace (or at the start) that
    # opens with "@", or with "#" and a letter
    rest = " ".join(
        " " if w.startswith("@") or (w[:1] == "#" and w[1:2].isalpha() and w[1] != "_") else w
        for w in re.split(r"(\s+)", rest)
    )
    kinds = [k for s in _sentences(rest) if (k := _sentence_kind(s, M)) != "empty"]
    return bool(kinds) and kinds[-1] == "question" and "request" not in kinds


@given(
    st.lists(
        st.sampled_from(
            [
                "how do I run it?",
                "can you fix the bug?",
                "fix the bug.",
                "ok.",
                "why",
                "the date picker is wrong, can you fix that?",
                "?",
                "\n",
                "please add a test",
                "what is this",
            ]
        ),
        max_size=5,
    ).map(" ".join)
)
def test_reading_sentences_from_the_last_gives_the_whole_rule(text: str) -> None:
    assert is_question(text, M) == _plain_is_question(text)


@given(
    st.text(alphabet=st.sampled_from([*"ab .?!\n\t", "。", "？", "\u2028", "\u00a0"]), max_size=30)
)
def test_sentences_are_cut_after_each_end_mark(text: str) -> None:
    """_sentences restated: a sentence runs up to and including each end match."""
    from smista.core.conditions.markers import _SENTENCE_END, _sentences

    out: list[str] = []
    start = 0
    for match in re.finditer(_SENTENCE_END, text):
        out.append(text[start : match.end()])
        start = match.end()
    out.append(text[start:])
    assert _sentences(text) == [s for s in out if s.strip()]


def test_the_longest_opener_memo_stays_bounded() -> None:
    """_longest remembers per opener tuple, and forgets all past 256 tuples held."""
    from smista.core.conditions.markers import _longest

    tuples = [(("a",) * (i % 4 + 1), ("b",)) for i in range(300)]  # 300 distinct objects
    assert [_longest(t) for t in tuples] == [i % 4 + 1 for i in range(300)]
    assert len(_longest) <= 257
    assert _longest(()) == 0


_SENTENCE_PARTS = st.sampled_from(
    [
        "how do I run the tests?",
        "can you fix the login bug",
        "The build fails with exit code 2.",
        "Why?",
        "thanks!",
        "ok",
        "please add a retry loop",
        "what does this do",
        "修正してくれますか",
        "これは何ですか？",
        "\n",
        "?!",
        " - ",
        "x" * 90,
    ]
)


@given(st.lists(_SENTENCE_PARTS, min_size=1, max_size=30), st.sampled_from([" ", "\n", ". "]))
def test_a_long_texts_tail_reading_agrees_with_reading_every_sentence(
    parts: list[str], sep: str
) -> None:
    """The tail shortcut of a long text gives the answer of the full reading."""
    import smista.core.conditions.markers as markers

    text = sep.join(parts)
    fast = is_question(text, M)
    saved = markers._TAIL
    markers._TAIL = 1 << 30
    try:
        assert fast == is_question(text, M)
    finally:
        markers._TAIL = saved


@given(st.lists(_SENTENCE_PARTS, min_size=1, max_size=4).map(" ".join))
def test_reading_a_sentence_for_a_question_only_drops_the_request_statement_difference(
    sentence: str,
) -> None:
    """``asking`` may read a request with no sign of a question as a statement, nothing else."""
    from smista.core.conditions.markers import _sentence_kind

    full = _sentence_kind(sentence, M)
    fast = _sentence_kind(sentence, M, asking=True)
    assert fast == full or (full == "request" and fast == "")


def test_a_whole_token_opener_of_a_no_space_script_needs_no_prefix_reading() -> None:
    """A token that is itself an opener counts whole; its prefixes are not read again."""
    from smista.core.conditions.markers import _opener_at

    assert _opener_at(["请帮我"], 0, (("请帮我",),)) == 3
    assert _opener_at(["请帮我修复"], 0, (("请帮我",),)) == 3  # as a prefix
    assert _opener_at(["请帮我", "修复"], 0, (("请帮我", "修复"), ("请",))) == 6


@given(
    st.text(
        alphabet=st.sampled_from([*" \t\n@/a.:-_\\", "\u00a0", "\u2003", "\u3000", "é", "ж"]),
        max_size=16,
    )
)
def test_split_command_strips_what_the_leading_mention_pattern_strips(text: str) -> None:
    """_split_command reads mentions with the regex only when one can start: restated
    with the pattern at every call."""
    from smista.core.conditions.markers import _command, _split_command
    from smista.core.tokenizer import rust_lower

    stripped = text[re.compile(r"\s*(?:@\S+\s+)*").match(text).end() :]  # type: ignore[union-attr]
    match = _command().match(stripped, 1) if stripped.startswith("/") else None
    if match is None or stripped[match.end() :].startswith(("/", "\\")):
        expected: tuple[str | None, str] = (None, text)
    else:
        name = match.group(1).rstrip(".:-")
        expected = (rust_lower(name), stripped[1 + len(name) :])
    assert _split_command(text) == expected
