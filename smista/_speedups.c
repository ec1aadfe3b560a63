/*
 * smista._speedups: the compiled hot path of the rule matcher.
 *
 * Owns one thing: a bounded table from lowercased ASCII token to the outcome
 * code the matcher computed for it (smista.engine), and a scan that tokenizes
 * a prompt whose letters and digits are all ASCII in one pass -- splitting and
 * lowercasing exactly as smista.tokenizer does (any other character is a
 * separator there too) -- and folds the codes of its tokens without creating
 * a single Python object per token.
 *
 * It never decides anything itself: every code it returns was put there by
 * the Python engine (TokenCodes.remember), so its answers are the engine's.
 * A prompt it cannot answer (one holding a non-ASCII letter or digit, or a
 * token it has not been told about) gets a negative answer and the engine
 * takes its pure-Python path. No I/O.
 *
 * The same table also serves the typo index (deletion_hits: which deletion
 * variants of a token are keys of the index), so learning a new token does
 * not build a Python string per variant.
 *
 * Also here: count_newlines, the memchr loop that bulk classification
 * (smista.batch) uses to number lines without touching them in Python.
 *
 * Thread safety: every method runs holding the GIL and never releases it, so
 * each call is atomic with respect to other Python threads.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "_speedups_alnum.h"

/* Lowercased byte for an ASCII letter or digit, 0 for a separator (every
 * other byte, like smista.tokenizer.ASCII_TABLE's spaces). */
static unsigned char LOWER[256];

static void
init_lower(void)
{
    for (int c = 0; c < 256; c++) {
        if (c >= 'a' && c <= 'z')
            LOWER[c] = (unsigned char)c;
        else if (c >= 'A' && c <= 'Z')
            LOWER[c] = (unsigned char)(c - 'A' + 'a');
        else if (c >= '0' && c <= '9')
            LOWER[c] = (unsigned char)c;
        else
            LOWER[c] = 0;
    }
}

#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL
#define NO_HIT INT64_MAX /* a token that hits nothing never lowers the best code */
#define MIN_SLOTS 64

#define INLINE_KEY 16 /* keys this long or shorter live in the slot itself */

typedef struct {
    uint32_t hash; /* 0 = empty slot */
    uint32_t len;
    int64_t code;
    union {
        unsigned char small[INLINE_KEY];
        unsigned char *big; /* owned; when len > INLINE_KEY */
    } key;                  /* the lowercased token */
} Slot;

static inline const unsigned char *
slot_key(const Slot *s)
{
    return s->len <= INLINE_KEY ? s->key.small : s->key.big;
}

typedef struct {
    PyObject_HEAD
    Slot *slots;
    size_t mask;  /* number of slots - 1 (a power of two) */
    size_t used;  /* tokens held */
    size_t limit; /* most tokens held; the table empties when it is reached */
} TokenCodes;

static inline uint32_t
finish_hash(uint64_t h)
{
    uint32_t folded = (uint32_t)(h ^ (h >> 32));
    return folded ? folded : 1;
}

static uint32_t
hash_bytes(const unsigned char *s, Py_ssize_t n)
{
    uint64_t h = FNV_OFFSET;
    for (Py_ssize_t i = 0; i < n; i++)
        h = (h ^ s[i]) * FNV_PRIME;
    return finish_hash(h);
}

static void
free_keys(TokenCodes *self)
{
    if (self->slots == NULL)
        return;
    for (size_t i = 0; i <= self->mask; i++) {
        if (self->slots[i].hash && self->slots[i].len > INLINE_KEY)
            PyMem_Free(self->slots[i].key.big);
    }
}

static int
alloc_slots(TokenCodes *self, size_t count)
{
    Slot *slots = PyMem_Calloc(count, sizeof(Slot));
    if (slots == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    self->slots = slots;
    self->mask = count - 1;
    return 0;
}

static void
clear_table(TokenCodes *self)
{
    free_keys(self);
    if (self->mask + 1 > MIN_SLOTS) {
        Slot *small = PyMem_Calloc(MIN_SLOTS, sizeof(Slot));
        if (small != NULL) {
            PyMem_Free(self->slots);
            self->slots = small;
            self->mask = MIN_SLOTS - 1;
            self->used = 0;
            return;
        }
    }
    memset(self->slots, 0, (self->mask + 1) * sizeof(Slot));
    self->used = 0;
}

/* The slot holding `key` (already lowercased), or the empty slot where it
 * would go. */
static Slot *
find_slot(Slot *slots, size_t mask, uint32_t h, const unsigned char *key, Py_ssize_t len)
{
    size_t i = (size_t)h & mask;
    for (;;) {
        Slot *s = &slots[i];
        if (s->hash == 0)
            return s;
        if (s->hash == h && s->len == len && memcmp(slot_key(s), key, (size_t)len) == 0)
            return s;
        i = (i + 1) & mask;
    }
}

static int
grow(TokenCodes *self)
{
    size_t old_count = self->mask + 1;
    Slot *old = self->slots;
    if (alloc_slots(self, old_count * 2) < 0) {
        self->slots = old;
        return -1;
    }
    for (size_t i = 0; i < old_count; i++) {
        if (old[i].hash) {
            Slot *s = find_slot(self->slots, self->mask, old[i].hash, slot_key(&old[i]),
                                old[i].len);
            *s = old[i];
        }
    }
    PyMem_Free(old);
    return 0;
}

/* Store `code` for the lowercased ASCII token `key`. */
static int
put(TokenCodes *self, const unsigned char *key, Py_ssize_t len, int64_t code)
{
    if (len > (Py_ssize_t)UINT32_MAX)
        return 0; /* never looked up either: scan() treats it as unknown */
    uint32_t h = hash_bytes(key, len);
    Slot *s = find_slot(self->slots, self->mask, h, key, len);
    if (s->hash) {
        s->code = code;
        return 0;
    }
    if (self->used >= self->limit) {
        clear_table(self); /* bounded, like the engine's memo: start over */
        s = find_slot(self->slots, self->mask, h, key, len);
    }
    if (len > INLINE_KEY) {
        unsigned char *copy = PyMem_Malloc((size_t)len);
        if (copy == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        memcpy(copy, key, (size_t)len);
        s->key.big = copy;
    }
    else {
        memcpy(s->key.small, key, (size_t)len);
    }
    s->hash = h;
    s->len = (uint32_t)len;
    s->code = code;
    self->used++;
    if (self->used * 2 > self->mask + 1)
        return grow(self);
    return 0;
}

static PyObject *
TokenCodes_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"limit", NULL};
    Py_ssize_t limit;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "n", kwlist, &limit))
        return NULL;
    if (limit < 1) {
        PyErr_SetString(PyExc_ValueError, "limit must be at least 1");
        return NULL;
    }
    TokenCodes *self = (TokenCodes *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->limit = (size_t)limit;
    if (alloc_slots(self, MIN_SLOTS) < 0) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

static void
TokenCodes_dealloc(TokenCodes *self)
{
    free_keys(self);
    PyMem_Free(self->slots);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Whether the non-ASCII code point `ch` is a token character (Rust's
 * char::is_alphanumeric): binary search of the generated ranges. */
static int
is_alnum_non_ascii(Py_UCS4 ch)
{
    Py_ssize_t lo = 0, hi = ALNUM_RANGE_COUNT - 1;
    while (lo <= hi) {
        Py_ssize_t mid = (lo + hi) / 2;
        if (ch < ALNUM_RANGES[mid][0])
            hi = mid - 1;
        else if (ch > ALNUM_RANGES[mid][1])
            lo = mid + 1;
        else
            return 1;
    }
    return 0;
}

#define SCAN_UNKNOWN (-1) /* a token the table does not know */
#define SCAN_UNSUPPORTED (-2) /* a non-ASCII token character: Python's tokenizer decides */

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)0)
#endif

#define SCAN_BATCH 16 /* tokens whose slots are prefetched before any is probed */

typedef struct {
    Py_ssize_t start;
    Py_ssize_t len;
    uint64_t head[2]; /* the lowercased token's first 16 bytes, zero-padded */
    uint32_t hash;
} Pending;

/* Whether the slot holds the pending token: short keys (zero-padded in the
 * slot) compare as two words, without a data-dependent loop. */
static inline int
slot_matches(const Slot *s, const Pending *t, int kind, const void *data)
{
    if (s->hash != t->hash || s->len != t->len)
        return 0;
    if (t->len <= INLINE_KEY) {
        uint64_t k[2];
        memcpy(k, s->key.small, sizeof(k));
        return ((k[0] ^ t->head[0]) | (k[1] ^ t->head[1])) == 0;
    }
    const unsigned char *k = s->key.big;
    for (Py_ssize_t m = 0; m < t->len; m++) {
        if (k[m] != LOWER[PyUnicode_READ(kind, data, t->start + m)])
            return 0;
    }
    return 1;
}

/* Scan text of any kind. Tokens are runs of ASCII letters and digits; a
 * non-ASCII character ends a token when it is not alphanumeric (quotes,
 * dashes, emoji...), and stops the scan when it is. Tokens are probed in
 * batches whose slots were prefetched first, so a prompt of many distinct
 * tokens waits for memory once per batch rather than once per token.
 * Inlined per kind. */
#define SCAN_ERROR (-3) /* a Python exception is set */

/* The lowercased token text[start:start+len] as a new str (ASCII). */
static PyObject *
token_str(int kind, const void *data, Py_ssize_t start, Py_ssize_t len)
{
    PyObject *token = PyUnicode_New(len, 127);
    if (token == NULL)
        return NULL;
    Py_UCS1 *out = PyUnicode_1BYTE_DATA(token);
    for (Py_ssize_t m = 0; m < len; m++)
        out[m] = LOWER[PyUnicode_READ(kind, data, start + m)];
    return token;
}

/* With `hits` NULL: the smallest of `best` and the codes of the tokens.
 * Otherwise: append to `hits` every token whose code is not NO_HIT, and
 * return `best` unchanged. */
static inline int64_t
scan_text(const TokenCodes *self, int kind, int ascii, const void *data, Py_ssize_t n,
          int64_t best, PyObject *hits)
{
    const Slot *slots = self->slots;
    const size_t mask = self->mask;
    Pending batch[SCAN_BATCH];
    int pending = 0;
    Py_ssize_t i = 0;
    for (;;) {
        Py_UCS4 ch = 0;
        while (i < n) {
            ch = PyUnicode_READ(kind, data, i);
            if (ascii || ch < 128) {
                if (LOWER[ch])
                    break;
            }
            else if (is_alnum_non_ascii(ch))
                return SCAN_UNSUPPORTED;
            i++;
        }
        if (i < n) {
            const Py_ssize_t start = i;
            uint64_t h = FNV_OFFSET;
            Pending *t = &batch[pending];
            unsigned char head[2 * sizeof(uint64_t)] = {0};
            for (;;) {
                const unsigned char c = LOWER[ch];
                h = (h ^ c) * FNV_PRIME;
                if (i - start < (Py_ssize_t)sizeof(head))
                    head[i - start] = c;
                if (++i >= n)
                    break;
                ch = PyUnicode_READ(kind, data, i);
                if (!ascii && ch >= 128) {
                    if (is_alnum_non_ascii(ch))
                        return SCAN_UNSUPPORTED; /* the token goes on past ASCII */
                    break;
                }
                if (!LOWER[ch])
                    break;
            }
            t->hash = finish_hash(h);
            PREFETCH(&slots[t->hash & mask]);
            t->start = start;
            t->len = i - start;
            memcpy(t->head, head, sizeof(head));
            if (++pending < SCAN_BATCH)
                continue;
        }
        for (int b = 0; b < pending; b++) {
            const Pending *t = &batch[b];
            size_t j = (size_t)t->hash & mask;
            while (!slot_matches(&slots[j], t, kind, data)) {
                if (slots[j].hash == 0)
                    return SCAN_UNKNOWN; /* unknown token: the engine learns it */
                j = (j + 1) & mask;
            }
            if (hits == NULL) {
                if (slots[j].code < best)
                    best = slots[j].code;
            }
            else if (slots[j].code != NO_HIT) {
                PyObject *token = token_str(kind, data, t->start, t->len);
                if (token == NULL || PyList_Append(hits, token) < 0) {
                    Py_XDECREF(token);
                    return SCAN_ERROR;
                }
                Py_DECREF(token);
            }
        }
        pending = 0;
        if (i >= n)
            return best;
    }
}

static int64_t
scan_any(const TokenCodes *self, PyObject *text, int64_t best, PyObject *hits)
{
    const void *data = PyUnicode_DATA(text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    /* Each call has constant kind and ascii arguments, so the compiler
     * specializes the inlined loop for each (and for hits NULL or not). */
    if (hits == NULL) {
        if (PyUnicode_IS_ASCII(text))
            return scan_text(self, PyUnicode_1BYTE_KIND, 1, data, n, best, NULL);
        if (PyUnicode_KIND(text) == PyUnicode_1BYTE_KIND)
            return scan_text(self, PyUnicode_1BYTE_KIND, 0, data, n, best, NULL);
        if (PyUnicode_KIND(text) == PyUnicode_2BYTE_KIND)
            return scan_text(self, PyUnicode_2BYTE_KIND, 0, data, n, best, NULL);
        return scan_text(self, PyUnicode_4BYTE_KIND, 0, data, n, best, NULL);
    }
    if (PyUnicode_IS_ASCII(text))
        return scan_text(self, PyUnicode_1BYTE_KIND, 1, data, n, best, hits);
    if (PyUnicode_KIND(text) == PyUnicode_1BYTE_KIND)
        return scan_text(self, PyUnicode_1BYTE_KIND, 0, data, n, best, hits);
    if (PyUnicode_KIND(text) == PyUnicode_2BYTE_KIND)
        return scan_text(self, PyUnicode_2BYTE_KIND, 0, data, n, best, hits);
    return scan_text(self, PyUnicode_4BYTE_KIND, 0, data, n, best, hits);
}

PyDoc_STRVAR(scan_doc,
"scan(text, best, /) -> int\n--\n\n"
"The smallest of ``best`` and the codes of the tokens of ``text``; -1 when a\n"
"token is unknown to the table, -2 when ``text`` holds a non-ASCII letter or\n"
"digit (the caller's tokenizer must decide), whichever the scan meets first.\n"
"``best`` must be non-negative.");

static PyObject *
TokenCodes_scan(TokenCodes *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "scan() takes exactly 2 arguments");
        return NULL;
    }
    PyObject *text = args[0];
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "scan() text must be str");
        return NULL;
    }
    long long best = PyLong_AsLongLong(args[1]);
    if (best == -1 && PyErr_Occurred())
        return NULL;
    if (best < 0) {
        PyErr_SetString(PyExc_ValueError, "scan() best must be non-negative");
        return NULL;
    }
    return PyLong_FromLongLong(scan_any(self, text, best, NULL));
}

PyDoc_STRVAR(hits_doc,
"hits(text, /) -> list[str] | int\n--\n\n"
"The tokens of ``text`` (lowercased, repeats kept) that hit some rule; -1 or\n"
"-2 as for :meth:`scan` when the table cannot answer.");

static PyObject *
TokenCodes_hits(TokenCodes *self, PyObject *text)
{
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "hits() text must be str");
        return NULL;
    }
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    int64_t result = scan_any(self, text, 0, out);
    if (result >= 0)
        return out;
    Py_DECREF(out);
    return result == SCAN_ERROR ? NULL : PyLong_FromLongLong(result);
}

/* Whether `token` is a non-empty str of lowercase ASCII letters and digits:
 * the only tokens the table stores (what the tokenizer makes of ASCII). */
static int
is_token_text(PyObject *token)
{
    if (!PyUnicode_Check(token) || !PyUnicode_IS_ASCII(token))
        return 0;
    const unsigned char *s = PyUnicode_1BYTE_DATA(token);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(token);
    for (Py_ssize_t m = 0; m < n; m++) {
        if (LOWER[s[m]] != s[m])
            return 0;
    }
    return n > 0;
}

PyDoc_STRVAR(remember_doc,
"remember(tokens, plain, codes, /) -> None\n--\n\n"
"Record the engine's verdict on each of ``tokens``: its code in ``codes``, or\n"
"no hit when it is a key of ``plain``. Tokens in neither, and tokens that are\n"
"not lowercased ASCII letters and digits, are skipped.");

static PyObject *
TokenCodes_remember(TokenCodes *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "remember() takes exactly 3 arguments");
        return NULL;
    }
    PyObject *plain = args[1], *codes = args[2];
    if (!PyDict_Check(plain) || !PyDict_Check(codes)) {
        PyErr_SetString(PyExc_TypeError, "remember() plain and codes must be dicts");
        return NULL;
    }
    PyObject *it = PyObject_GetIter(args[0]);
    if (it == NULL)
        return NULL;
    PyObject *token;
    while ((token = PyIter_Next(it)) != NULL) {
        int64_t code;
        if (!is_token_text(token)) {
            Py_DECREF(token);
            continue;
        }
        PyObject *found = PyDict_GetItemWithError(codes, token); /* borrowed */
        if (found != NULL) {
            long long v = PyLong_AsLongLong(found);
            if (v == -1 && PyErr_Occurred()) {
                Py_DECREF(token);
                Py_DECREF(it);
                return NULL;
            }
            code = v;
        }
        else if (PyErr_Occurred()) {
            Py_DECREF(token);
            Py_DECREF(it);
            return NULL;
        }
        else {
            int in_plain = PyDict_Contains(plain, token);
            if (in_plain < 0) {
                Py_DECREF(token);
                Py_DECREF(it);
                return NULL;
            }
            if (!in_plain) {
                Py_DECREF(token);
                continue;
            }
            code = NO_HIT;
        }
        int rc = put(self, PyUnicode_1BYTE_DATA(token),
                     PyUnicode_GET_LENGTH(token), code);
        Py_DECREF(token);
        if (rc < 0) {
            Py_DECREF(it);
            return NULL;
        }
    }
    Py_DECREF(it);
    if (PyErr_Occurred())
        return NULL;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(index_doc,
"index(keys, /) -> None\n--\n\n"
"Record each of ``keys`` (a sequence of str) with its position as its code;\n"
"keys that are not lowercase ASCII letters and digits are skipped.");

static PyObject *
TokenCodes_index(TokenCodes *self, PyObject *keys)
{
    PyObject *seq = PySequence_Fast(keys, "index() keys must be a sequence");
    if (seq == NULL)
        return NULL;
    const Py_ssize_t count = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *key = items[i];
        if (is_token_text(key) &&
            put(self, PyUnicode_1BYTE_DATA(key), PyUnicode_GET_LENGTH(key), i) < 0) {
            Py_DECREF(seq);
            return NULL;
        }
    }
    Py_DECREF(seq);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(deletion_hits_doc,
"deletion_hits(token, depths, /) -> list[int] | None\n--\n\n"
"The codes of the table's tokens that equal a deletion variant of ``token``:\n"
"``token`` itself (``depths & 1``), with one character deleted (``& 2``), with\n"
"two deleted (``& 4``); repeats possible. ``None`` unless ``token`` is all\n"
"lowercase ASCII letters and digits (the caller then computes the variants).");

static int
append_hit(TokenCodes *self, PyObject *out, const unsigned char *key, Py_ssize_t len)
{
    uint32_t h = hash_bytes(key, len);
    Slot *s = find_slot(self->slots, self->mask, h, key, len);
    if (s->hash == 0)
        return 0;
    PyObject *code = PyLong_FromLongLong(s->code);
    if (code == NULL)
        return -1;
    int rc = PyList_Append(out, code);
    Py_DECREF(code);
    return rc;
}

static PyObject *
TokenCodes_deletion_hits(TokenCodes *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyUnicode_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "deletion_hits() takes a str and an int");
        return NULL;
    }
    long depths = PyLong_AsLong(args[1]);
    if (depths == -1 && PyErr_Occurred())
        return NULL;
    PyObject *token = args[0];
    if (!is_token_text(token))
        Py_RETURN_NONE;
    const unsigned char *t = PyUnicode_1BYTE_DATA(token);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(token);
    unsigned char small[256];
    unsigned char *buf = small;
    if (n > (Py_ssize_t)sizeof(small)) {
        buf = PyMem_Malloc((size_t)n);
        if (buf == NULL)
            return PyErr_NoMemory();
    }
    PyObject *out = PyList_New(0);
    if (out == NULL)
        goto fail;
    if ((depths & 1) && append_hit(self, out, t, n) < 0)
        goto fail;
    if (depths & 2) {
        for (Py_ssize_t i = 0; i < n; i++) {
            memcpy(buf, t, (size_t)i);
            memcpy(buf + i, t + i + 1, (size_t)(n - i - 1));
            if (append_hit(self, out, buf, n - 1) < 0)
                goto fail;
        }
    }
    if (depths & 4) {
        for (Py_ssize_t i = 0; i < n; i++) {
            for (Py_ssize_t j = i + 1; j < n; j++) {
                memcpy(buf, t, (size_t)i);
                memcpy(buf + i, t + i + 1, (size_t)(j - i - 1));
                memcpy(buf + j - 1, t + j + 1, (size_t)(n - j - 1));
                if (append_hit(self, out, buf, n - 2) < 0)
                    goto fail;
            }
        }
    }
    if (buf != small)
        PyMem_Free(buf);
    return out;
fail:
    Py_XDECREF(out);
    if (buf != small)
        PyMem_Free(buf);
    return NULL;
}

PyDoc_STRVAR(get_doc,
"get(token, /) -> int | None\n--\n\n"
"The code recorded for ``token``; ``None`` if unknown (no hit reads as -1).");

static PyObject *
TokenCodes_get(TokenCodes *self, PyObject *token)
{
    if (!PyUnicode_Check(token) || !PyUnicode_IS_ASCII(token))
        Py_RETURN_NONE;
    const unsigned char *key = PyUnicode_1BYTE_DATA(token);
    Py_ssize_t len = PyUnicode_GET_LENGTH(token);
    if (len > (Py_ssize_t)UINT32_MAX)
        Py_RETURN_NONE;
    Slot *s = find_slot(self->slots, self->mask, hash_bytes(key, len), key, len);
    if (s->hash == 0)
        Py_RETURN_NONE;
    return PyLong_FromLongLong(s->code == NO_HIT ? -1 : s->code);
}

static PyObject *
TokenCodes_clear(TokenCodes *self, PyObject *Py_UNUSED(ignored))
{
    clear_table(self);
    Py_RETURN_NONE;
}

static Py_ssize_t
TokenCodes_len(TokenCodes *self)
{
    return (Py_ssize_t)self->used;
}

static PyObject *
TokenCodes_get_limit(TokenCodes *self, void *Py_UNUSED(closure))
{
    return PyLong_FromSize_t(self->limit);
}

static PyMethodDef TokenCodes_methods[] = {
    {"scan", (PyCFunction)(void (*)(void))TokenCodes_scan, METH_FASTCALL, scan_doc},
    {"hits", (PyCFunction)TokenCodes_hits, METH_O, hits_doc},
    {"remember", (PyCFunction)(void (*)(void))TokenCodes_remember, METH_FASTCALL, remember_doc},
    {"get", (PyCFunction)TokenCodes_get, METH_O, get_doc},
    {"deletion_hits", (PyCFunction)(void (*)(void))TokenCodes_deletion_hits, METH_FASTCALL,
     deletion_hits_doc},
    {"index", (PyCFunction)TokenCodes_index, METH_O, index_doc},
    {"clear", (PyCFunction)TokenCodes_clear, METH_NOARGS, "clear() -> None\n--\n\nForget every token."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef TokenCodes_getset[] = {
    {"limit", (getter)TokenCodes_get_limit, NULL, "Most tokens held before the table empties.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PySequenceMethods TokenCodes_as_sequence = {
    .sq_length = (lenfunc)TokenCodes_len,
};

PyDoc_STRVAR(TokenCodes_doc,
"TokenCodes(limit)\n--\n\n"
"A bounded table from lowercased ASCII token to the matcher's outcome code.");

static PyTypeObject TokenCodesType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "smista._speedups.TokenCodes",
    .tp_basicsize = sizeof(TokenCodes),
    .tp_dealloc = (destructor)TokenCodes_dealloc,
    .tp_as_sequence = &TokenCodes_as_sequence,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = TokenCodes_doc,
    .tp_methods = TokenCodes_methods,
    .tp_getset = TokenCodes_getset,
    .tp_new = TokenCodes_new,
};

PyDoc_STRVAR(split_count_doc,
"split_count(text, /) -> int\n--\n\n"
"How many tokens the ASCII ``text`` holds (-1 if it is not ASCII): the bare\n"
"pass over the prompt that any classifier must make, for benchmarks.");

static PyObject *
split_count(PyObject *Py_UNUSED(module), PyObject *text)
{
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "split_count() text must be str");
        return NULL;
    }
    if (!PyUnicode_IS_ASCII(text))
        return PyLong_FromLong(-1);
    const unsigned char *p = PyUnicode_1BYTE_DATA(text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    Py_ssize_t count = 0;
    int inside = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int alnum = LOWER[p[i]] != 0;
        count += alnum & !inside;
        inside = alnum;
    }
    return PyLong_FromSsize_t(count);
}

PyDoc_STRVAR(count_newlines_doc,
"count_newlines(data, /) -> int\n--\n\n"
"How many newline bytes ``data`` (any bytes-like object) holds, with memchr.");

static PyObject *
count_newlines(PyObject *Py_UNUSED(module), PyObject *arg)
{
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    const char *p = view.buf;
    const char *end = p + view.len;
    Py_ssize_t count = 0;
    while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        count++;
        p++;
    }
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(count);
}

static PyMethodDef module_methods[] = {
    {"split_count", (PyCFunction)split_count, METH_O, split_count_doc},
    {"count_newlines", (PyCFunction)count_newlines, METH_O, count_newlines_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef speedups_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "smista._speedups",
    .m_doc = "Compiled hot path of smista's rule matcher (optional; see smista.engine).",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    init_lower();
    if (PyType_Ready(&TokenCodesType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&speedups_module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&TokenCodesType);
    if (PyModule_AddObject(m, "TokenCodes", (PyObject *)&TokenCodesType) < 0) {
        Py_DECREF(&TokenCodesType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
