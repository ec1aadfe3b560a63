"""Glob matching with globset 0.4.18 default semantics (cases from globset's own tests)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from smista.core.glob import GlobError, compile_glob, glob_regex, paths_match

# (pattern, path) pairs globset matches with default options.
MATCHES = [
    ("a", "a"),
    ("a*b", "a_b"),
    ("a*b*c", "abc"),
    ("a*b*c", "a_b_c"),
    ("a*b*c", "a___b___c"),
    ("abc*abc*abc", "abcabcabcabcabcabcabc"),
    ("a*a*a*a*a*a*a*a*a", "a" * 31),
    ("a*b[xyz]c*d", "abxcdbxcddd"),
    ("*.rs", ".rs"),
    ("☃", "☃"),
    ("some/**/needle.txt", "some/needle.txt"),
    ("some/**/needle.txt", "some/one/needle.txt"),
    ("some/**/needle.txt", "some/one/two/needle.txt"),
    ("some/**/needle.txt", "some/other/needle.txt"),
    ("**", "abcde"),
    ("**", ""),
    ("**", ".asdf"),
    ("**", "/x/.asdf"),
    ("some/**/**/needle.txt", "some/needle.txt"),
    ("some/**/**/needle.txt", "some/one/needle.txt"),
    ("some/**/**/needle.txt", "some/one/two/needle.txt"),
    ("some/**/**/needle.txt", "some/other/needle.txt"),
    ("**/test", "one/two/test"),
    ("**/test", "one/test"),
    ("**/test", "test"),
    ("/**/test", "/one/two/test"),
    ("/**/test", "/one/test"),
    ("/**/test", "/test"),
    ("**/.*", ".abc"),
    ("**/.*", "abc/.abc"),
    ("**/foo/bar", "foo/bar"),
    (".*/**", ".abc/abc"),
    ("test/**", "test/"),
    ("test/**", "test/one"),
    ("test/**", "test/one/two"),
    ("some/*/needle.txt", "some/one/needle.txt"),
    ("a[0-9]b", "a0b"),
    ("a[0-9]b", "a9b"),
    ("a[!0-9]b", "a_b"),
    ("[a-z123]", "1"),
    ("[1a-z23]", "1"),
    ("[123a-z]", "1"),
    ("[abc-]", "-"),
    ("[-abc]", "-"),
    ("[-a-c]", "b"),
    ("[a-c-]", "b"),
    ("[-]", "-"),
    ("a[^0-9]b", "a_b"),
    ("*hello.txt", "hello.txt"),
    ("*hello.txt", "gareth_says_hello.txt"),
    ("*hello.txt", "some/path/to/hello.txt"),
    ("*hello.txt", "some\\path\\to\\hello.txt"),
    ("*hello.txt", "/an/absolute/path/to/hello.txt"),
    ("*some/path/to/hello.txt", "some/path/to/hello.txt"),
    ("*some/path/to/hello.txt", "a/bigger/some/path/to/hello.txt"),
    ("_[[]_[]]_[?]_[*]_!_", "_[_]_?_*_!_"),
    ("a,b", "a,b"),
    (",", ","),
    ("{a,b}", "a"),
    ("{a,b}", "b"),
    ("{**/src/**,foo}", "abc/src/bar"),
    ("{**/src/**,foo}", "foo"),
    ("{[}],foo}", "}"),
    ("{foo}", "foo"),
    ("{}", ""),
    ("{,}", ""),
    ("{*.foo,*.bar,*.wat}", "test.foo"),
    ("{*.foo,*.bar,*.wat}", "test.bar"),
    ("{*.foo,*.bar,*.wat}", "test.wat"),
    ("foo{,.txt}", "foo.txt"),
    ("{a,b{c,d}}", "bc"),
    ("{a,b{c,d}}", "bd"),
    ("{a,b{c,d}}", "a"),
    ("\\[", "["),
    ("\\?", "?"),
    ("\\*", "*"),
    ("\\a", "a"),
    # smista's own: * and ? cross '/', multi-line paths, routing shapes
    ("*.rs", "src/deep/main.rs"),
    ("src/*", "src/a/b.rs"),
    ("a?b", "a/b"),
    ("src/auth/**", "src/auth/login.rs"),
    ("src/auth/**", "src/auth/a/b/c.rs"),
    ("*", "line1\nline2"),
]

# (pattern, path) pairs globset does not match.
NON_MATCHES = [
    ("foo{,.txt}", "foo"),
    ("a*b*c", "abcd"),
    ("abc*abc*abc", "abcabcabcabcabcabcabca"),
    ("some/**/needle.txt", "some/other/notthis.txt"),
    ("some/**/**/needle.txt", "some/other/notthis.txt"),
    ("/**/test", "test"),
    ("/**/test", "/one/notthis"),
    ("/**/test", "/notthis"),
    ("**/.*", "ab.c"),
    ("**/.*", "abc/ab.c"),
    (".*/**", "a.bc"),
    (".*/**", "abc/a.bc"),
    ("a[0-9]b", "a_b"),
    ("a[!0-9]b", "a0b"),
    ("a[!0-9]b", "a9b"),
    ("[!-]", "-"),
    ("*hello.txt", "hello.txt-and-then-some"),
    ("*hello.txt", "goodbye.txt"),
    ("*some/path/to/hello.txt", "some/path/to/hello.txt-and-then-some"),
    ("*some/path/to/hello.txt", "some/other/path/to/hello.txt"),
    ("a", "foo/a"),
    ("./foo", "foo"),
    ("**/foo", "foofoo"),
    ("**/foo/bar", "foofoo/bar"),
    ("/*.c", "mozilla-sha1/sha1.c"),
    ("a[^0-9]b", "a0b"),
    ("a[^0-9]b", "a9b"),
    ("[^-]", "-"),
    ("some/*/needle.txt", "some/needle.txt"),
    (".*/**", ".abc"),
    ("foo/**", "foo"),
    # smista's own
    ("src/auth/**", "src/main.rs"),
    ("src/auth/**", "src/authz/x.rs"),
    ("A", "a"),
    ("a?b", "aéb"),  # ? matches one byte; é is two
    ("[é]", "é"),  # a class matches one byte
]

# Patterns globset rejects, with the reason smista reports.
INVALID = [
    ("[", "unclosed character class; missing ']'"),
    ("[]", "unclosed character class; missing ']'"),
    ("[!", "unclosed character class; missing ']'"),
    ("[!]", "unclosed character class; missing ']'"),
    ("[z-a]", "invalid range; 'z' > 'a'"),
    ("[z--]", "invalid range; 'z' > '-'"),
    ("{a,b", "unclosed alternate group; missing '}'"),
    ("{a,{b,c}", "unclosed alternate group; missing '}'"),
    ("a,b}", "unopened alternate group; missing '{'"),
    ("{a,b}}", "unopened alternate group; missing '{'"),
    ("a\\", "dangling '\\'"),
]

# Regexes globset documents (escapes aside) for recursive patterns.
REGEXES = [
    ("**", "^.*$"),
    ("**/", "^.*$"),
    ("**/*", "^(?:/?|.*/).*$"),
    ("**/**", "^.*$"),
    ("**/**/*", "^(?:/?|.*/).*$"),
    ("a/**", "^a/.*$"),
    ("a/**/**", "^a/.*$"),
    ("a/**/b", "^a(?:/|/.*/)b$"),
    ("a/**/**/b", "^a(?:/|/.*/)b$"),
    ("**/b", "^(?:/?|.*/)b$"),
    ("a**", "^a.*.*$"),
    ("**a", "^.*.*a$"),
    ("a**b", "^a.*.*b$"),
    ("***", "^.*.*.*$"),
    ("{a,b}", "^(?:a|b)$"),
    ("{a,{b,c}}", "^(?:a|(?:b|c))$"),
    ("{{a,b},{c,d}}", "^(?:(?:a|b)|(?:c|d))$"),
    ("", "^$"),
]


@pytest.mark.parametrize(("pattern", "path"), MATCHES)
def test_globset_matches(pattern: str, path: str) -> None:
    """Every pair globset's tests expect to match does."""
    assert compile_glob(pattern).matches(path)


@pytest.mark.parametrize(("pattern", "path"), NON_MATCHES)
def test_globset_non_matches(pattern: str, path: str) -> None:
    """Every pair globset's tests expect not to match does not."""
    assert not compile_glob(pattern).matches(path)


@pytest.mark.parametrize(("pattern", "reason"), INVALID)
def test_invalid_globs_are_rejected_with_a_reason(pattern: str, reason: str) -> None:
    """globset's syntax errors, each with its own message."""
    with pytest.raises(GlobError) as info:
        compile_glob(pattern)
    assert info.value.reason == reason
    assert str(info.value) == f"invalid glob {pattern!r}: {reason}"


@pytest.mark.parametrize(("pattern", "regex"), REGEXES)
def test_recursive_patterns_translate_like_globset(pattern: str, regex: str) -> None:
    """The regex structure globset's to-regex tests pin down."""
    assert glob_regex(pattern) == regex


def test_a_range_that_widens_the_previous_one() -> None:
    """globset quirk: in '[a-c-e]' the second '-' extends the range to a-e."""
    assert compile_glob("[a-c-e]").matches("d")


def test_paths_match_from_the_original() -> None:
    """signals.rs S3/S4: any path against any glob; none or an invalid one never match."""
    assert paths_match(["src/auth/**"], ["src/auth/login.rs"])
    assert not paths_match(["src/auth/**"], ["src/main.rs"])
    assert not paths_match([], ["src/auth/login.rs"])
    assert not paths_match(["["], ["src/auth/login.rs"])


def test_one_invalid_glob_spoils_the_whole_list() -> None:
    """As in the original, a list holding an invalid glob matches nothing."""
    assert not paths_match(["src/**", "["], ["src/main.rs"])


def test_any_glob_any_path() -> None:
    """OR across globs and across paths."""
    assert paths_match(["src/auth/**", "src/crypto/**"], ["docs/readme.md", "src/crypto/aes.rs"])


_SAFE = st.text(alphabet=st.characters(blacklist_characters="*?[]{}\\,", codec="utf-8"))


@given(_SAFE)
def test_a_literal_pattern_matches_exactly_itself(path: str) -> None:
    """Without metacharacters a glob is its own only match."""
    glob = compile_glob(path)
    assert glob.matches(path)
    assert not glob.matches(path + "x")


@given(st.text(alphabet=st.characters(codec="utf-8")))
def test_double_star_matches_everything(path: str) -> None:
    """'**' alone matches any path, and '*' does too (it crosses '/')."""
    assert compile_glob("**").matches(path)
    assert compile_glob("*").matches(path)


@given(st.text(max_size=30))
def test_compiling_never_raises_anything_but_glob_error(pattern: str) -> None:
    """Any text either compiles to a valid regex or is a GlobError."""
    try:
        glob = compile_glob(pattern)
    except GlobError:
        return
    assert isinstance(glob.regex, re.Pattern)


def test_double_star_inside_a_segment_is_two_stars() -> None:
    """globset's to-regex test '/**a' => '^/.*.*a$': '**' not followed by '/' is plain stars."""
    glob = compile_glob("/**a")
    assert glob.matches("/xa")
    assert glob.matches("/x/ya")
    assert glob.matches("/a")
    assert not glob.matches("/ab")


def test_a_range_may_end_at_a_dash() -> None:
    """In '[+--]' the second '-' closes the range '+'..'-', which holds ',' as well."""
    glob = compile_glob("[+--]")
    assert [glob.matches(c) for c in "+,-a"] == [True, True, True, False]


def test_paths_holding_any_lone_surrogate_are_compared() -> None:
    """A path with a lone surrogate (not only surrogateescape's) is matched, never an error."""
    assert compile_glob("*.txt").matches("\ud800.txt")
    assert compile_glob("\ud800*").matches("\ud800x")
    assert not compile_glob("\ud800*").matches("x")
    assert compile_glob("*.txt").matches("\udcff.txt")
