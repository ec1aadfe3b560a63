/*
 * The compiled hot path of the rule matcher (imported as SMISTA_SPEEDUPS_NAME,
 * which the build hook, hatch_build.py, defines from its one constant).
 *
 * Owns two tables and the scan that reads prompts against them:
 *
 * TokenCodes: a bounded table from token to the outcome code the matcher
 * (smista.core.engine) computed for it, and a scan that tokenizes a prompt in one
 * pass -- splitting exactly as smista.core.tokenizer does (Rust's
 * char::is_alphanumeric, from the generated _speedups_alnum.h) -- and folds
 * the codes of its tokens without creating a Python object per known token.
 * Tokens the table does not know are handed back (the scan never restarts),
 * for the engine to resolve just those and put() their codes.
 *
 *   A token's key is its text with ASCII letters lowercased and every other
 *   character as UTF-8. Only ASCII lowercasing happens here: Rust's Unicode
 *   lowercasing (final sigma, expansions) stays in Python, which resolves a
 *   non-ASCII token from its raw text, so two spellings of one word are two
 *   keys with the same code. Keys are hashed with a keyed hash whose key is
 *   drawn from os.urandom when the module loads (a prompt cannot be crafted
 *   to collide in every process). The table is bounded: when full, a CLOCK
 *   hand evicts one token neither stored nor looked up since the hand last
 *   passed it (never the whole table at once).
 *
 *   The verifying path's table (rule sets with extension conditions) holds
 *   payloads instead of codes: keep() interns a token's tuple of what it hits
 *   (entries, words, stems; at most PAYLOAD_LIMIT distinct ones, held until
 *   the table goes), and fold() adds the payloads of a prompt's known tokens
 *   to the engine's accumulators, touching only str, tuples, lists, sets and
 *   dicts (no Python code runs mid-scan).
 *
 *   Tokens that can never match a keyword are never stored or probed: longer
 *   than `max_len` characters, or with more than `max_foreign` ASCII
 *   characters outside the keywords' alphabet (each such character costs an
 *   edit, and no typo allows more than max_foreign edits).
 *
 * VariantIndex: the typo index of a rule set, compactly. Every deletion
 * variant of every keyword (up to the keyword's typo cap) is stored as a
 * 32-bit hash and the keyword's position (8 bytes); candidates() returns the
 * keywords sharing a variant with a token. A hash collision only adds a
 * candidate, which the engine verifies like any other.
 *
 * It never decides anything itself: every code it returns was put there by
 * the Python engine, so its answers are the engine's. No I/O.
 *
 * FeatureTable: a text model's features and integer weights (smista.core.textmodel),
 * and sums(), which tokenizes a prompt as smista.core.tokenizer does (its first
 * max_tokens tokens, Rust's lowercasing; a token holding U+03A3 hands the text back
 * to Python) and adds up the weights of the known features it holds: tokens, the '#' +
 * character pairs of tokens of spaceless scripts, and the corrected words given, each
 * counted once. TextModel.known() and TextModel.probabilities() state the same.
 * TokenCodes.fold() can read the same features' ids on its own pass over a prompt (the
 * engine's scan), for sums_of(): the text is then tokenized once; top_of() gives
 * softmax_top() of those sums in the same call (the sums never made Python ints).
 *
 * Walker: a rule set's verifying plan compiled (smista.core.walk builds it), whose walk()
 * and match() run the candidate walk of CompiledRules._match_view in C: the rules a
 * keyword hit and the keyword-less rules behind their gates, in rank order, each checked
 * for its contexts and conditions. A condition whose kind gives a native op is answered
 * here from the prompt's facts (read through the tables above); every other one is the
 * kind's own match() in Python. The Python loop is the statement; tests hold them equal.
 *
 * Also here: count_newlines, the memchr loop that bulk classification
 * (smista.scale.batch) uses to number lines without touching them in Python.
 *
 * State and threads (PEP 489 multi-phase init, PEP 703 free threading):
 *
 *   Process-wide and read-only once set: the character tables and the hash
 *   key, filled once per process by the first module exec (under a PyMutex
 *   from 3.13, so interpreters with their own GIL may load the module; on
 *   3.12 under the GIL, which every interpreter allowed to load it shares).
 *   Re-executing the module (a re-import, another interpreter) never redraws
 *   the key, so tables built earlier keep their hashes.
 *
 *   Per module object (module state): the heap types (TokenCodes, VariantIndex,
 *   MarkerTable, SubstringSet, FeatureTable, Walker). Nothing Python is held in a C global.
 *
 *   Per object: a TokenCodes table is mutated by scan(), hits() and fold() (CLOCK
 *   bits, tokens settled in C, tokens resolved in C and their shared matches), put(),
 *   keep(), remember(), attach(), attach_resolver() and clear(); every method
 *   holds the object's critical section (Py_BEGIN_CRITICAL_SECTION: a no-op
 *   under the GIL, a per-object lock on free-threaded builds), and no method
 *   keeps a pointer into the table across a call into Python. A VariantIndex,
 *   a MarkerTable, a SubstringSet, a FeatureTable and a Walker are immutable once
 *   built (a MarkerTable's no_space callback into Python sees one character of the
 *   call's own token copy; the text read is an immutable str its caller holds; a
 *   FeatureTable call keeps what it found in its own stack or heap buffers; a walk
 *   keeps its state on its own stack and folds through its TokenCodes' fold(), which
 *   holds that table's critical section). Hence Py_mod_gil = Py_MOD_GIL_NOT_USED.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#ifndef SMISTA_SOURCE_DIGEST
/* hatch_build.py passes a digest of this file and its header: the module's
 * SOURCE_DIGEST, so a test can tell a binary left over from older sources */
#define SMISTA_SOURCE_DIGEST "unknown"
#endif
#ifndef SMISTA_SPEEDUPS_NAME
#error "SMISTA_SPEEDUPS_NAME (the module's dotted name) is defined by hatch_build.py"
#endif

/* Python < 3.13 has no critical sections: the GIL alone serializes calls. */
#ifndef Py_BEGIN_CRITICAL_SECTION
#define Py_BEGIN_CRITICAL_SECTION(op) {
#define Py_END_CRITICAL_SECTION() }
#endif

#include "_speedups_alnum.h"

/* STEP(Py_UCS1), STEP(Py_UCS2) or STEP(Py_UCS4) for a str of this kind: a loop body
 * written once as a macro, compiled once per character width (no kind switch per
 * character). */
#define PER_KIND(kind, STEP)                                                            \
    do {                                                                                \
        if ((kind) == PyUnicode_1BYTE_KIND)                                             \
            STEP(Py_UCS1);                                                              \
        else if ((kind) == PyUnicode_2BYTE_KIND)                                        \
            STEP(Py_UCS2);                                                              \
        else                                                                            \
            STEP(Py_UCS4);                                                              \
    } while (0)

/* Lowercased byte for an ASCII letter or digit, 0 for a separator (every
 * other ASCII byte, like smista.core.tokenizer.ASCII_TABLE's spaces). */
static unsigned char LOWER[128];
/* str.lower() of each code point below U+0100 (one such code point each: A-Z and
 * U+00C0-U+00DE but U+00D7 move up by 32; tests check all 256 against Python). */
static unsigned char LOWER1[256];
/* One bit per BMP code point: whether it is a token character. */
static uint8_t BMP_ALNUM[0x10000 / 8];

static void
init_tables(void)
{
    for (int c = 0; c < 128; c++) {
        if (c >= 'a' && c <= 'z')
            LOWER[c] = (unsigned char)c;
        else if (c >= 'A' && c <= 'Z')
            LOWER[c] = (unsigned char)(c - 'A' + 'a');
        else if (c >= '0' && c <= '9')
            LOWER[c] = (unsigned char)c;
        else
            LOWER[c] = 0;
    }
    for (int c = 0; c < 256; c++) {
        const int up = (c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0xDE && c != 0xD7);
        LOWER1[c] = (unsigned char)(up ? c + 32 : c);
    }
    memset(BMP_ALNUM, 0, sizeof(BMP_ALNUM));
    for (int c = 0; c < 128; c++) {
        if (LOWER[c])
            BMP_ALNUM[c >> 3] |= (uint8_t)(1u << (c & 7));
    }
    for (int r = 0; r < ALNUM_RANGE_COUNT; r++) {
        uint32_t a = ALNUM_RANGES[r][0], b = ALNUM_RANGES[r][1];
        if (a > 0xFFFF)
            break;
        if (b > 0xFFFF)
            b = 0xFFFF;
        for (uint32_t c = a; c <= b; c++)
            BMP_ALNUM[c >> 3] |= (uint8_t)(1u << (c & 7));
    }
}

/* Whether the astral code point `ch` is a token character: binary search. */
static int
is_alnum_astral(Py_UCS4 ch)
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

static inline int
is_token_char(Py_UCS4 ch)
{
    if (ch < 0x10000)
        return (BMP_ALNUM[ch >> 3] >> (ch & 7)) & 1;
    return is_alnum_astral(ch);
}

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)0)
#endif

/* Rust's lowercase of the non-ASCII token character `ch` (not U+03A3, whose
 * lowercase depends on its neighbours) into `out`; the number of code points. */
static inline int
lower_non_ascii(Py_UCS4 ch, uint32_t out[2])
{
    Py_ssize_t lo = 0, hi = LOWER_MAP_COUNT - 1;
    while (lo <= hi) {
        Py_ssize_t mid = (lo + hi) / 2;
        if (ch < LOWER_MAP[mid][0])
            hi = mid - 1;
        else if (ch > LOWER_MAP[mid][0])
            lo = mid + 1;
        else {
            out[0] = LOWER_MAP[mid][1];
            out[1] = LOWER_MAP[mid][2];
            return out[1] ? 2 : 1;
        }
    }
    out[0] = ch;
    return 1;
}

#define CAPITAL_SIGMA 0x3A3

/* -- the keyed hash -------------------------------------------------------------- */

static uint64_t SEED0 = 0x243f6a8885a308d3ULL, SEED1 = 0x13198a2e03707344ULL;

static inline uint64_t
mum(uint64_t a, uint64_t b)
{
#if defined(__SIZEOF_INT128__)
    __uint128_t r = (__uint128_t)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
#else
    uint64_t ha = a >> 32, la = (uint32_t)a, hb = b >> 32, lb = (uint32_t)b;
    uint64_t rh = ha * hb, rm0 = ha * lb, rm1 = hb * la, rl = la * lb;
    uint64_t t = rl + (rm0 << 32), c = t < rl;
    uint64_t lo = t + (rm1 << 32);
    c += lo < t;
    uint64_t hi = rh + (rm0 >> 32) + (rm1 >> 32) + c;
    return lo ^ hi;
#endif
}

static inline uint64_t
read_word(const unsigned char *p, size_t n)
{
    uint64_t w = 0;
    memcpy(&w, p, n < 8 ? n : 8);
    return w;
}

static inline uint32_t
fold_hash(uint64_t h)
{
    uint32_t folded = (uint32_t)(h ^ (h >> 32));
    return folded ? folded : 1;
}

/* The keyed hash of a key of at most 16 bytes held zero-padded in `k[16]`
 * (the scan's fast case: two word loads, two multiplications). */
static inline uint32_t
key_hash_short(const unsigned char *k, size_t n)
{
    uint64_t a, b;
    memcpy(&a, k, 8);
    memcpy(&b, k + 8, 8);
    uint64_t h = mum(a ^ SEED0, b ^ SEED1 ^ (uint64_t)n);
    return fold_hash(mum(h ^ SEED1, SEED0 ^ ((uint64_t)n << 32)));
}

/* wyhash-style keyed hash of `n` bytes, folded to 32 bits (never 0). */
static inline uint32_t
key_hash(const unsigned char *p, size_t n)
{
    if (n <= 16) {
        unsigned char padded[16] = {0};
        memcpy(padded, p, n);
        return key_hash_short(padded, n);
    }
    uint64_t h = SEED0 ^ ((uint64_t)n * 0x9e3779b97f4a7c15ULL);
    size_t left = n;
    while (left > 16) {
        h = mum(read_word(p, 8) ^ SEED1, read_word(p + 8, 8) ^ h);
        p += 16;
        left -= 16;
    }
    uint64_t a = left > 8 ? read_word(p, 8) : read_word(p, left);
    uint64_t b = left > 8 ? read_word(p + 8, left - 8) : 0;
    h = mum(a ^ SEED1, b ^ h ^ SEED0);
    return fold_hash(mum(h ^ SEED0, (uint64_t)n ^ SEED1));
}

/* UTF-8 bytes of the code point `ch` (a surrogate too: three bytes); the count. */
static inline int
put_utf8(unsigned char *out, uint32_t ch)
{
    if (ch < 0x80) {
        out[0] = (unsigned char)ch;
        return 1;
    }
    if (ch < 0x800) {
        out[0] = (unsigned char)(0xC0 | (ch >> 6));
        out[1] = (unsigned char)(0x80 | (ch & 0x3F));
        return 2;
    }
    if (ch < 0x10000) {
        out[0] = (unsigned char)(0xE0 | (ch >> 12));
        out[1] = (unsigned char)(0x80 | ((ch >> 6) & 0x3F));
        out[2] = (unsigned char)(0x80 | (ch & 0x3F));
        return 3;
    }
    out[0] = (unsigned char)(0xF0 | (ch >> 18));
    out[1] = (unsigned char)(0x80 | ((ch >> 12) & 0x3F));
    out[2] = (unsigned char)(0x80 | ((ch >> 6) & 0x3F));
    out[3] = (unsigned char)(0x80 | (ch & 0x3F));
    return 4;
}

/* UTF-8 bytes of one character of a key (ASCII lowered); returns the count. */
static inline int
put_key_char(unsigned char *out, Py_UCS4 ch)
{
    if (ch < 0x80) {
        out[0] = LOWER[ch] ? LOWER[ch] : (unsigned char)ch;
        return 1;
    }
    return put_utf8(out, (uint32_t)ch);
}

/* -- module state -------------------------------------------------------------------- */

typedef struct {
    PyTypeObject *TokenCodesType;
    PyTypeObject *VariantIndexType;
    PyTypeObject *MarkerTableType;
    PyTypeObject *SubstringSetType;
    PyTypeObject *FeatureTableType;
    PyTypeObject *WalkerType;
} SpeedupsState;

static struct PyModuleDef speedups_module;

static inline SpeedupsState *
speedups_state(PyObject *module)
{
    return (SpeedupsState *)PyModule_GetState(module);
}

/* -- VariantIndex storage (the type itself is further down) ----------------------- */

/* Deletion variants are hashed with a keyed polynomial hash, so the hash of
 * a string with one or two characters deleted comes from the string's prefix
 * sums in O(1): H(s) = sum c_m R^m (mod 2^64), R odd and secret, then mixed
 * with the seed. A collision only adds a candidate (verified afterwards). */
static uint64_t POLY_R = 0x9e3779b97f4a7c15ULL, POLY_RINV = 0;

typedef struct {
    uint32_t hash; /* 0 = empty */
    uint32_t id;   /* the keyword's position */
} Variant;

typedef struct {
    PyObject_HEAD
    Variant *slots;
    size_t mask;
    size_t used;
    uint64_t *bloom; /* two bits per variant, 16 bits of filter per variant */
    size_t bloom_mask; /* bits - 1 */
    PyObject *keywords; /* the tuple of keywords, for typos() to verify against */
    uint8_t *caps;      /* each keyword's typo cap */
} VariantIndex;

static inline uint64_t
variant_hash(uint64_t poly, size_t len)
{
    return mum(poly ^ SEED0, (uint64_t)len ^ SEED1);
}

static inline uint32_t
variant_tag(uint64_t h)
{
    uint32_t folded = (uint32_t)(h ^ (h >> 32));
    return folded ? folded : 1;
}

/* The filter's two bits for hash `h`, both in the one 64-bit word that bits 40
 * and up of `h` choose: a probe reads one cache line, not two. The bits are h's
 * lowest six and the six above them: a shift by a register takes its count modulo
 * 64, so the test (bloom_word_has) is two shifts and an AND, masks made of none. */
static inline uint64_t
bloom_bits(uint64_t h)
{
    return (1ULL << (h & 63)) | (1ULL << ((h >> 6) & 63));
}

/* Whether the filter word `word` has both of bloom_bits(h). */
static inline int
bloom_word_has(uint64_t word, uint64_t h)
{
    return (int)((word >> (h & 63)) & (word >> ((h >> 6) & 63)) & 1);
}

static inline int
bloom_has(const VariantIndex *vi, uint64_t h)
{
    return bloom_word_has(vi->bloom[(size_t)(h >> 40) & (vi->bloom_mask >> 6)], h);
}

static inline void
bloom_add(VariantIndex *vi, uint64_t h)
{
    vi->bloom[(size_t)(h >> 40) & (vi->bloom_mask >> 6)] |= bloom_bits(h);
}

/* Whether some keyword has the variant with hash `h`. */
static inline int
variant_present(const VariantIndex *vi, uint64_t h)
{
    if (!bloom_has(vi, h))
        return 0;
    const uint32_t tag = variant_tag(h);
    size_t i = (size_t)tag & vi->mask;
    while (vi->slots[i].hash) {
        if (vi->slots[i].hash == tag)
            return 1;
        i = (i + 1) & vi->mask;
    }
    return 0;
}

/* Prefix sums P[0..n] of c_m R^m for the characters `c[0:n]`. */
#define PREFIX_OF(P, c, n)                                                           \
    do {                                                                             \
        uint64_t pw_ = 1;                                                            \
        (P)[0] = 0;                                                                  \
        for (Py_ssize_t m_ = 0; m_ < (n); m_++) {                                    \
            (P)[m_ + 1] = (P)[m_] + ((uint64_t)(c)[m_] + 1) * pw_;                   \
            pw_ *= POLY_R;                                                           \
        }                                                                            \
    } while (0)

/* The polynomial of the string minus character i (j < 0), or minus i < j. */
static inline uint64_t
poly_without(const uint64_t *P, Py_ssize_t n, Py_ssize_t i, Py_ssize_t j)
{
    if (j < 0)
        return P[i] + (P[n] - P[i + 1]) * POLY_RINV;
    return P[i] + (P[j] - P[i + 1]) * POLY_RINV + (P[n] - P[j + 1]) * POLY_RINV * POLY_RINV;
}

#define MAX_VARIANT_TOKEN 256

/* The edge filter attach() builds from a VariantIndex for near_verified()'s loop over
 * a token's variants less two characters: for each token length L + 2 whose depths
 * allow that loop, each keyword variant of length L that can verify as near such a
 * token (a cap-1 keyword less one character, a cap-2 keyword less 0, 1 or 2; see
 * near_verified()) has its first p characters (side 0) and its last p, reversed
 * (side 1), for p = 1..EDGE, one bit each, keyed by (L, side, p, their polynomial).
 * No false negatives; a false positive only skips less. */
#define EDGE 4

static inline uint64_t
edge_hash(uint64_t poly, size_t len, int side, int p)
{
    const uint64_t where = ((uint64_t)len << 4) | ((uint64_t)side << 3) | (uint64_t)p;
    return mum(poly ^ SEED1, where ^ SEED0);
}

static inline int
edge_has(const uint64_t *edges, size_t mask, uint64_t h)
{
    const size_t bit = (size_t)h & mask;
    return (int)((edges[bit >> 6] >> (bit & 63)) & 1);
}

static inline void
edge_put(uint64_t *edges, size_t mask, uint64_t poly, Py_ssize_t len, int side,
         Py_ssize_t p)
{
    const size_t bit = (size_t)edge_hash(poly, (size_t)len, side, (int)p) & mask;
    edges[bit >> 6] |= 1ULL << (bit & 63);
}

/* Put in the edge filter the first 1..EDGE characters of every variant that deleting
 * `kd` (0..2) characters from `s[0:kn]` gives (`side` 0), or, `s` being a keyword
 * reversed, the reversed last ones (side 1). The first p characters of such a variant
 * are s[0:p+j] less j of them, for some j <= kd (the first p kept characters end at
 * position p+j-1, j deleted before it, the other kd-j after it: there is room for
 * them, as kn - (p+j) >= kd - j when p <= kn - kd), and each such string is the first
 * p of one: exactly those are put. */
static void
edge_add(uint64_t *edges, size_t mask, const Py_UCS4 *s, Py_ssize_t kn, int kd, int side)
{
    const Py_ssize_t len = kn - kd;
    const uint64_t rinv = POLY_RINV;
    uint64_t P[EDGE + 3], D[EDGE + 2], E[EDGE + 2];
    const Py_ssize_t span = EDGE + kd < kn ? EDGE + kd : kn;
    PREFIX_OF(P, s, span);
    /* less x, or x < y, regrouped as in near_verified(): D[x] + P[end] R^-1, and
     * D[x] + E[y] + P[end] R^-2 */
    for (Py_ssize_t m = 0; m < span; m++) {
        D[m] = P[m] - P[m + 1] * rinv;
        E[m] = D[m] * rinv;
    }
    for (Py_ssize_t p = 1; p <= EDGE && p <= len; p++) { /* (p + kd <= kn) */
        edge_put(edges, mask, P[p], len, side, p); /* j = 0 */
        if (kd >= 1) {
            const uint64_t top = P[p + 1] * rinv;
            for (Py_ssize_t x = 0; x < p + 1; x++)
                edge_put(edges, mask, D[x] + top, len, side, p);
        }
        if (kd >= 2) {
            const uint64_t top = P[p + 2] * rinv * rinv;
            for (Py_ssize_t x = 0; x < p + 2; x++) {
                for (Py_ssize_t y = x + 1; y < p + 2; y++)
                    edge_put(edges, mask, D[x] + E[y] + top, len, side, p);
            }
        }
    }
}

/* The tuple (a, b), stealing both references (as Py_BuildValue("(NN)") does, without
 * parsing a format on every call); NULL with both released when it cannot be made. */
static PyObject *
pair_steal(PyObject *a, PyObject *b)
{
    PyObject *pair = PyTuple_New(2);
    if (pair == NULL) {
        Py_DECREF(a);
        Py_DECREF(b);
        return NULL;
    }
    PyTuple_SET_ITEM(pair, 0, a);
    PyTuple_SET_ITEM(pair, 1, b);
    return pair;
}

/* The (place, probability) pair softmax_top() and top_of() give. */
static PyObject *
top_pair(Py_ssize_t best, double probability)
{
    PyObject *place = PyLong_FromSsize_t(best);
    if (place == NULL)
        return NULL;
    PyObject *value = PyFloat_FromDouble(probability);
    if (value == NULL) {
        Py_DECREF(place);
        return NULL;
    }
    return pair_steal(place, value);
}

/* -- TokenCodes ---------------------------------------------------------------- */

#define NO_HIT INT64_MAX /* a token that hits nothing never lowers the best code */
#define MIN_SLOTS 64
#define INLINE_KEY 16     /* keys this long or shorter live in the slot itself */
#define REF 0x80000000u   /* CLOCK reference bit, in Slot.lenref */
#define LEN_MASK 0x7fffffffu
#define MAX_KEY ((Py_ssize_t)LEN_MASK)

typedef struct {
    uint32_t hash;   /* 0 = empty slot */
    uint32_t lenref; /* key length, and the CLOCK reference bit */
    int64_t code;
    union {
        unsigned char small[INLINE_KEY];
        unsigned char *big; /* owned; when the key is longer than INLINE_KEY */
    } key;
} Slot;

static inline uint32_t
slot_len(const Slot *s)
{
    return s->lenref & LEN_MASK;
}

static inline const unsigned char *
slot_key(const Slot *s)
{
    return slot_len(s) <= INLINE_KEY ? s->key.small : s->key.big;
}

typedef struct {
    PyObject_HEAD
    Slot *slots;
    size_t mask;  /* number of slots - 1 (a power of two) */
    /* While the table grows: the previous array, moved into `slots` a few slots per
     * put_key() from `cursor` up (see grow()); NULL otherwise. */
    Slot *old;
    size_t old_mask;
    size_t cursor;
    /* From 3/8 full: the next array (twice as many slots), zeroed a few slots per
     * put_key() up to `zeroed` (see prepare()); NULL otherwise. */
    Slot *next;
    size_t zeroed;
    size_t used;  /* tokens held (in both arrays) */
    size_t limit; /* most tokens held; past it the CLOCK hand evicts one */
    size_t hand;  /* the CLOCK hand */
    Py_ssize_t max_len;    /* longer tokens never match (0: no bound) */
    int max_foreign;       /* more foreign ASCII characters never match (-1: no bound) */
    uint8_t foreign[128];  /* 1 for an ASCII token character no keyword holds */
    int collide;           /* tests: every key hashes alike */
    size_t evictions;
    VariantIndex *variants; /* attached: unknown tokens without a candidate */
    unsigned char depths[256]; /* ...are settled here, per token length */
    uint64_t *edges;        /* the variants' edge filter (see edge_add()), and */
    size_t edge_mask;       /* its bits - 1 */
    VariantIndex *stems;    /* attached too: prefixes (caps 0) that keep a token */
    unsigned char stem_lengths[256]; /* their lengths, ascending, each < 256 */
    int stem_count;
    Py_ssize_t settled;     /* tokens settled in C as hitting nothing */
    uint32_t *alpha_na;     /* the alphabet's non-ASCII characters, sorted */
    Py_ssize_t alpha_na_count;
    /* keep()/fold(): a token's code is the place of its payload here (interned) */
    PyObject **payloads;    /* owned references */
    Py_ssize_t payload_count, payload_cap;
    PyObject *payload_codes; /* dict: payload -> code (NULL until the first keep) */
    uint32_t *stamps;       /* per payload: the fold call that last folded it */
    uint32_t epoch;
    /* attach_resolver(): fold() resolves a new token near a keyword or word here
     * (resolve_new()) instead of handing it back; NULL until then */
    PyObject *res_exact;      /* dict (a copy): keyword -> its (rank, pos, rule) places */
    PyObject *res_typo;       /* the same for the keywords a typo may hit */
    PyObject *res_word_exact; /* frozenset of the looked-up words, or None */
    PyObject *res_word_typo;  /* frozenset of the words that take typos, or None */
    Py_ssize_t res_keep;      /* longest token kept (longer ones: Python decides) */
    PyTypeObject *res_match_type; /* RuleMatch, for the shared match of a free rule */
    PyObject *res_labels;     /* tuple: each rule's label */
    PyObject *res_keywords;   /* tuple: each rule's keywords (a tuple of str) */
    unsigned char *res_free;  /* per rule: 1 when it needs no context and no condition */
    Py_ssize_t *res_base;     /* per rule: where its keywords' matches start in res_matches */
    PyObject **res_matches;   /* per keyword and fuzzy: the shared match, made on first need */
    Py_ssize_t res_rules, res_slots;
    Py_ssize_t resolved;      /* tokens resolved here */
} TokenCodes;

static inline uint32_t
table_hash_padded(const TokenCodes *self, const unsigned char *key, size_t n)
{
    /* `key` holds at least 16 bytes, zero past `n` when n <= 16 */
    if (self->collide)
        return 1u;
    return n <= 16 ? key_hash_short(key, n) : key_hash(key, n);
}

static inline uint32_t
table_hash(const TokenCodes *self, const unsigned char *key, size_t n)
{
    return self->collide ? 1u : key_hash(key, n);
}

/* Free the heap keys of slots[from..mask] (slots below `from` hold none). */
static void
free_keys_of(Slot *slots, size_t from, size_t mask)
{
    if (slots == NULL)
        return;
    for (size_t i = from; i <= mask; i++) {
        if (slots[i].hash && slot_len(&slots[i]) > INLINE_KEY)
            PyMem_Free(slots[i].key.big);
    }
}

/* Free the old array of an unfinished growth, with the keys it still owns. */
static void
drop_old(TokenCodes *self)
{
    if (self->old == NULL)
        return;
    free_keys_of(self->old, self->cursor, self->old_mask);
    PyMem_Free(self->old);
    self->old = NULL;
    self->cursor = 0;
}

static void
free_keys(TokenCodes *self)
{
    free_keys_of(self->slots, 0, self->mask);
    drop_old(self);
    PyMem_Free(self->next); /* (holds no token yet) */
    self->next = NULL;
    self->zeroed = 0;
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
    self->used = 0;
    self->hand = 0;
    if (self->mask + 1 > MIN_SLOTS) {
        Slot *small = PyMem_Calloc(MIN_SLOTS, sizeof(Slot));
        if (small != NULL) {
            PyMem_Free(self->slots);
            self->slots = small;
            self->mask = MIN_SLOTS - 1;
            return;
        }
    }
    memset(self->slots, 0, (self->mask + 1) * sizeof(Slot));
}

/* The slot holding `key`, or the empty slot where it would go. */
static inline Slot *
find_slot(Slot *slots, size_t mask, uint32_t h, const unsigned char *key, size_t len)
{
    size_t i = (size_t)h & mask;
    for (;;) {
        Slot *s = &slots[i];
        if (s->hash == 0)
            return s;
        if (s->hash == h && slot_len(s) == len && memcmp(slot_key(s), key, len) == 0)
            return s;
        i = (i + 1) & mask;
    }
}

/* While the table grows, the slot of the old array holding `key`, or NULL.
 *
 * Why this finds every token the old array still holds: nothing is put in it, and
 * nothing taken out of it but by migrate(), which empties it from slot 0 up to
 * `cursor` (eviction waits for the move to end), so every slot at or past the cursor
 * is as it was when the growth began, when the probe run from a token's home to its
 * slot held no empty slot. A run that reaches the emptied prefix (from its home, or by
 * wrapping past the end) goes on at the cursor: the token lies at or past it, so the
 * rest of its run is intact. A second wrap has seen every slot past the cursor. */
static Slot *
find_old(const TokenCodes *self, uint32_t h, const unsigned char *key, size_t len)
{
    Slot *old = self->old;
    const size_t mask = self->old_mask, cursor = self->cursor;
    size_t i = (size_t)h & mask;
    int wrapped = 0;
    if (i < cursor)
        i = cursor;
    for (;;) {
        Slot *s = &old[i];
        if (s->hash == 0)
            return NULL;
        if (s->hash == h && slot_len(s) == len && memcmp(slot_key(s), key, len) == 0)
            return s;
        if (i == mask) {
            if (wrapped)
                return NULL;
            wrapped = 1;
            i = cursor;
        }
        else {
            i++;
        }
    }
}

/* Move the next `steps` slots of the old array (at most what is left) into the
 * current one, freeing the old array after its last. Each token lives in one array,
 * so a moved one goes to the first empty slot of its run without a comparison. */
static void
migrate(TokenCodes *self, size_t steps)
{
    Slot *old = self->old;
    const size_t count = self->old_mask + 1;
    size_t c = self->cursor;
    const size_t end = steps < count - c ? c + steps : count;
    Slot *slots = self->slots;
    const size_t mask = self->mask;
    for (; c < end; c++) {
        if (old[c].hash) {
            size_t j = (size_t)old[c].hash & mask;
            while (slots[j].hash)
                j = (j + 1) & mask;
            slots[j] = old[c];
            old[c].hash = 0; /* (read by no lookup: it lies below the cursor) */
        }
    }
    self->cursor = c;
    if (c == count) {
        PyMem_Free(old);
        self->old = NULL;
        self->cursor = 0;
    }
}

/* Slots a put_key() moves while the table grows: MIGRATE_STEP, or more when that would
 * not end the move before the table is full (eviction works on one array; with a
 * limit near a growth the move ends sooner, and at the limit all at once). With the
 * table doubling when half full, MIGRATE_STEP >= 2 ends each move before the next. */
#define MIGRATE_STEP 8

static inline size_t
migrate_steps(const TokenCodes *self)
{
    const size_t left = self->old_mask + 1 - self->cursor;
    if (self->used >= self->limit)
        return left;
    const size_t room = self->limit - self->used;
    const size_t need = (left + room - 1) / room;
    return need > MIGRATE_STEP ? need : MIGRATE_STEP;
}

/* Slots of the next array a put_key() zeroes: it is allocated when the table is 3/8
 * full, count / 8 insertions before it doubles, and has 2 * count slots to zero, so
 * 16 would do; 32 ends at 7/16. */
#define ZERO_STEP 32

/* After an insertion: from 3/8 full on, when the table can still double (its limit
 * lets it pass half full), allocate the next array and zero it ZERO_STEP slots at a
 * time, so that doubling neither zeroes 2 * count slots in one call (calloc() does when
 * the allocator hands back used memory: most of the doubling's cost once the rehash is
 * spread) nor touches all their pages at once. Without memory now, grow() allocates. */
static void
prepare(TokenCodes *self)
{
    const size_t count = self->mask + 1;
    if (self->next == NULL) {
        if (self->used * 8 <= count * 3 || self->limit * 2 <= count)
            return;
        self->next = PyMem_Malloc(2 * count * sizeof(Slot));
        self->zeroed = 0;
        if (self->next == NULL)
            return;
    }
    const size_t left = 2 * count - self->zeroed;
    const size_t step = left < ZERO_STEP ? left : ZERO_STEP;
    memset(self->next + self->zeroed, 0, step * sizeof(Slot));
    self->zeroed += step;
}

/* Double the table: a fresh array takes new tokens at once, and the old one's move
 * into it is spread over the next put_key() calls (migrate()), so no call pays for
 * rehashing the whole table (a stall of milliseconds at 64k tokens). Lookups read both
 * arrays until the move ends. */
static int
grow(TokenCodes *self)
{
    if (self->old != NULL)
        migrate(self, SIZE_MAX); /* (not reached with MIGRATE_STEP >= 2) */
    const size_t old_count = self->mask + 1;
    Slot *old = self->slots;
    if (self->next != NULL) {
        const size_t count = 2 * old_count;
        memset(self->next + self->zeroed, 0, (count - self->zeroed) * sizeof(Slot));
        self->slots = self->next;
        self->mask = count - 1;
        self->next = NULL;
        self->zeroed = 0;
    }
    else if (alloc_slots(self, old_count * 2) < 0) {
        self->slots = old;
        return -1;
    }
    self->old = old;
    self->old_mask = old_count - 1;
    self->cursor = 0;
    self->hand &= self->mask;
    return 0;
}

/* Remove the token in slot `i`, shifting later slots of its probe run back
 * (linear probing without tombstones). */
static void
delete_slot(TokenCodes *self, size_t i)
{
    Slot *slots = self->slots;
    const size_t mask = self->mask;
    if (slot_len(&slots[i]) > INLINE_KEY)
        PyMem_Free(slots[i].key.big);
    size_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (slots[j].hash == 0)
            break;
        size_t home = (size_t)slots[j].hash & mask;
        /* slot j may move to i unless its home lies cyclically in (i, j] */
        int stays = (i <= j) ? (i < home && home <= j) : (i < home || home <= j);
        if (!stays) {
            slots[i] = slots[j];
            i = j;
        }
    }
    memset(&slots[i], 0, sizeof(Slot));
    self->used--;
}

/* One CLOCK step past the full mark: evict the first token not referenced
 * since the hand last passed it (clearing references on the way). */
static void
evict_one(TokenCodes *self)
{
    for (;;) {
        Slot *s = &self->slots[self->hand];
        if (s->hash) {
            if (s->lenref & REF) {
                s->lenref &= ~REF;
            }
            else {
                delete_slot(self, self->hand);
                self->evictions++;
                return; /* the hand stays: a shifted slot may now be here */
            }
        }
        self->hand = (self->hand + 1) & self->mask;
    }
}

/* Store `code` under `key`. */
static int
put_key(TokenCodes *self, const unsigned char *key, size_t len, int64_t code)
{
    if (len > (size_t)MAX_KEY)
        return 0; /* never looked up either */
    uint32_t h = table_hash(self, key, len);
    if (self->old != NULL)
        migrate(self, migrate_steps(self));
    Slot *s = find_slot(self->slots, self->mask, h, key, len);
    if (s->hash) {
        s->code = code;
        return 0;
    }
    if (self->old != NULL) {
        Slot *o = find_old(self, h, key, len);
        if (o != NULL) {
            o->code = code;
            return 0;
        }
    }
    if (self->used >= self->limit) {
        evict_one(self); /* (the move has ended: migrate_steps() at the limit) */
        s = find_slot(self->slots, self->mask, h, key, len);
    }
    unsigned char *copy = NULL;
    if (len > INLINE_KEY) {
        copy = PyMem_Malloc(len);
        if (copy == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        memcpy(copy, key, len);
        s->key.big = copy;
    }
    else {
        memset(s->key.small, 0, INLINE_KEY);
        memcpy(s->key.small, key, len);
    }
    s->hash = h;
    /* Stored referenced: a new token often lands in the hole the eviction just
     * made under the hand, and unreferenced it would be the very next victim. */
    s->lenref = (uint32_t)len | REF;
    s->code = code;
    self->used++;
    if (self->used * 2 > self->mask + 1)
        return grow(self);
    prepare(self);
    return 0;
}

/* The key of str `token` (every character taken as a token character). */
static unsigned char *
key_of(PyObject *token, size_t *len, unsigned char *small, size_t small_size)
{
    const int kind = PyUnicode_KIND(token);
    const void *data = PyUnicode_DATA(token);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(token);
    unsigned char *buf = small;
    if ((size_t)n * 4 > small_size) {
        buf = PyMem_Malloc((size_t)n * 4);
        if (buf == NULL) {
            PyErr_NoMemory();
            return NULL;
        }
    }
    size_t k = 0;
    for (Py_ssize_t m = 0; m < n; m++)
        k += (size_t)put_key_char(buf + k, PyUnicode_READ(kind, data, m));
    *len = k;
    return buf;
}

static PyObject *
TokenCodes_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"limit", "max_len", "alphabet", "max_foreign", "collide", NULL};
    Py_ssize_t limit, max_len = 0;
    PyObject *alphabet = Py_None;
    int max_foreign = -1, collide = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "n|$nOip", kwlist, &limit, &max_len,
                                     &alphabet, &max_foreign, &collide))
        return NULL;
    if (limit < 1) {
        PyErr_SetString(PyExc_ValueError, "limit must be at least 1");
        return NULL;
    }
    if (max_len < 0) {
        PyErr_SetString(PyExc_ValueError, "max_len must be non-negative");
        return NULL;
    }
    if (alphabet != Py_None && !PyUnicode_Check(alphabet)) {
        PyErr_SetString(PyExc_TypeError, "alphabet must be str or None");
        return NULL;
    }
    TokenCodes *self = (TokenCodes *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->limit = (size_t)limit;
    self->max_len = max_len;
    self->collide = collide;
    self->max_foreign = alphabet == Py_None ? -1 : max_foreign;
    memset(self->foreign, 0, sizeof(self->foreign));
    if (alphabet != Py_None) {
        for (int c = 0; c < 128; c++)
            self->foreign[c] = LOWER[c] != 0;
        const Py_ssize_t n = PyUnicode_GET_LENGTH(alphabet);
        self->alpha_na = PyMem_Malloc(((size_t)n + 1) * sizeof(uint32_t));
        if (self->alpha_na == NULL) {
            Py_DECREF(self);
            return PyErr_NoMemory();
        }
        for (Py_ssize_t m = 0; m < n; m++) {
            Py_UCS4 ch = PyUnicode_READ_CHAR(alphabet, m);
            if (ch < 128 && LOWER[ch])
                self->foreign[LOWER[ch]] = 0;
            else if (ch >= 128)
                self->alpha_na[self->alpha_na_count++] = ch;
        }
        /* insertion sort: alphabets are small */
        for (Py_ssize_t a = 1; a < self->alpha_na_count; a++) {
            uint32_t v = self->alpha_na[a];
            Py_ssize_t b = a - 1;
            while (b >= 0 && self->alpha_na[b] > v) {
                self->alpha_na[b + 1] = self->alpha_na[b];
                b--;
            }
            self->alpha_na[b + 1] = v;
        }
        for (int c = 'A'; c <= 'Z'; c++)
            self->foreign[c] = self->foreign[c - 'A' + 'a'];
    }
    if (alloc_slots(self, MIN_SLOTS) < 0) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

/* Drop the resolver's per-rule arrays and the matches made so far. */
static void
resolver_free_matches(TokenCodes *self)
{
    for (Py_ssize_t k = 0; self->res_matches != NULL && k < self->res_slots; k++)
        Py_XDECREF(self->res_matches[k]);
    PyMem_Free(self->res_matches);
    PyMem_Free(self->res_base);
    PyMem_Free(self->res_free);
    self->res_matches = NULL;
    self->res_base = NULL;
    self->res_free = NULL;
    self->res_rules = self->res_slots = 0;
}

static void
TokenCodes_dealloc(TokenCodes *self)
{
    Py_XDECREF(self->variants);
    Py_XDECREF(self->stems);
    PyMem_Free(self->edges);
    for (Py_ssize_t k = 0; k < self->payload_count; k++)
        Py_DECREF(self->payloads[k]);
    PyMem_Free(self->payloads);
    PyMem_Free(self->stamps);
    Py_XDECREF(self->payload_codes);
    Py_XDECREF(self->res_exact);
    Py_XDECREF(self->res_typo);
    Py_XDECREF(self->res_word_exact);
    Py_XDECREF(self->res_word_typo);
    resolver_free_matches(self);
    Py_XDECREF(self->res_match_type);
    Py_XDECREF(self->res_labels);
    Py_XDECREF(self->res_keywords);
    PyMem_Free(self->alpha_na);
    free_keys(self);
    PyMem_Free(self->slots);
    PyTypeObject *type = Py_TYPE(self);
    type->tp_free((PyObject *)self);
    Py_DECREF(type); /* a heap type: each instance holds a reference to it */
}

/* Double the room of an array of `size`-byte items that starts in `small`, a buffer inside
 * its owner, holding `*cap` items: on the first growth it moves to the heap (its items
 * copied), later it is reallocated. 0, or -1 with MemoryError set (the array unchanged). */
static int
grow_small(void **items, const void *small, Py_ssize_t *cap, size_t size)
{
    const Py_ssize_t bigger = *cap * 2;
    void *a = *items == small ? PyMem_Malloc((size_t)bigger * size)
                              : PyMem_Realloc(*items, (size_t)bigger * size);
    if (a == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    if (*items == small)
        memcpy(a, small, (size_t)*cap * size);
    *items = a;
    *cap = bigger;
    return 0;
}

/* -- the scan ---------------------------------------------------------------------- */

#define SCAN_BATCH 16 /* tokens whose slots are prefetched before any is probed */
#define BATCH_KEY 64  /* longer keys are probed on their own, from the heap */

typedef struct {
    Py_ssize_t start, end; /* the token's characters in the text */
    uint32_t hash;
    uint32_t len;          /* key bytes */
    int ascii;
    unsigned char key[BATCH_KEY];
} Pending;

#define MATCH_STACK_RULES 512 /* Walker.match keeps its per-rule arrays on the stack up to here */
#define FOLD_SEEN 64 /* ASCII hitting tokens a fold() call remembers having put in `hitting` */

/* The hitting tokens of a Walker.match() fold, logged instead of put in `hitting` (a
 * match reads one or two of them, and a dict of them all was a good share of a cold
 * prompt's time): each token with its hit. walk_hits_of() reads it; walk_hitting() puts
 * it all in the dict when a view needs that, or after WALK_LOG_LOOKUPS lookups. */
#define HIT_LOG_SMALL 96
typedef struct {
    PyObject *token; /* owned str */
    PyObject *hit;   /* owned */
} HitRecord;

typedef struct {
    HitRecord *a;
    Py_ssize_t n, cap;
    HitRecord small[HIT_LOG_SMALL];
} HitLog;

static void
hit_log_init(HitLog *log)
{
    log->a = log->small;
    log->n = 0;
    log->cap = HIT_LOG_SMALL;
}

static void
hit_log_free(HitLog *log)
{
    for (Py_ssize_t k = 0; k < log->n; k++) {
        Py_DECREF(log->a[k].token);
        Py_DECREF(log->a[k].hit);
    }
    if (log->a != log->small)
        PyMem_Free(log->a);
    hit_log_init(log);
}

/* Log `hit` for `token` (a new reference, stolen). */
static int
hit_log_add(HitLog *log, PyObject *token, PyObject *hit)
{
    if (log->n == log->cap) {
        void *items = log->a;
        if (grow_small(&items, log->small, &log->cap, sizeof(HitRecord)) < 0) {
            Py_DECREF(token);
            return -1;
        }
        log->a = items;
    }
    HitRecord *r = &log->a[log->n++];
    r->token = token;
    r->hit = Py_NewRef(hit);
    return 0;
}

typedef struct {
    PyObject *entries, *words, *prefixes, *hitting; /* fold()'s accumulators */
    HitLog *log; /* non-NULL: the known hitting tokens go here, not in `hitting` */
    /* The first FOLD_SEEN distinct ASCII tokens put in `hitting` by this call (held
     * until it returns) and their scan hashes: a token's later occurrences map to the
     * same payload, so they put nothing new (no str made, none hashed). */
    int seen_count;
    uint32_t seen_hash[FOLD_SEEN];
    PyObject *seen[FOLD_SEEN];
} FoldState;

/* -- FeatureTable storage (the type itself is further down; fold() reads it too) -- */

/* A text model's known features with their integer weights (smista.core.textmodel),
 * read off a prompt in one pass: the tokens of the text (split and lowercased as
 * smista.core.tokenizer does, the first `max_tokens` of them), the '#' + pair of
 * neighbouring characters of each token of a script written without spaces, and the
 * corrected words given, each known feature counted once; sums() gives how many and
 * the sum of their weights for each label. Exactly what TextModel.known() and the
 * packed sums of TextModel.probabilities() give for tokenize(text) (tests compare
 * them). Features are keyed by their exact code points (as UTF-8, a lone surrogate
 * written like any other code point) under the process's keyed hash. Immutable once
 * built; holds only a tuple of str (no GC). */

typedef struct {
    uint32_t hash; /* 0 = empty */
    uint32_t id;
} FeatureSlot;

typedef struct {
    PyObject_HEAD
    PyObject *features;   /* tuple of str: the feature of each id */
    FeatureSlot *slots;
    size_t mask;
    uint32_t *offsets;    /* key of id k: pool[offsets[k] .. offsets[k + 1]] */
    unsigned char *pool;
    int32_t *weights;     /* id k, label l: weights[k * lanes + l] */
    Py_ssize_t count;
    Py_ssize_t lanes;
    Py_ssize_t max_tokens;
    size_t max_key;       /* the longest key, in bytes (a longer token is no feature) */
    int has_pairs;        /* some feature is '#' and two characters */
} FeatureTable;

/* The id of the feature whose key is `key[0..n)`, of key_hash() `h`, or -1. */
static inline Py_ssize_t
feature_id_hashed(const FeatureTable *self, const unsigned char *key, size_t n, uint32_t h)
{
    size_t i = h & self->mask;
    for (;;) {
        const FeatureSlot *s = &self->slots[i];
        if (s->hash == 0)
            return -1;
        if (s->hash == h) {
            const uint32_t a = self->offsets[s->id], b = self->offsets[s->id + 1];
            if (b - a == n && memcmp(self->pool + a, key, n) == 0)
                return s->id;
        }
        i = (i + 1) & self->mask;
    }
}

/* The id of the feature whose key is `key[0..n)`, or -1. */
static inline Py_ssize_t
feature_id(const FeatureTable *self, const unsigned char *key, size_t n)
{
    return feature_id_hashed(self, key, n, key_hash(key, n));
}

/* The distinct ids found so far: a list, and a bitmap over every id saying which are in. */
typedef struct {
    uint32_t *ids;
    Py_ssize_t count;
    Py_ssize_t cap;
    uint64_t *seen;
    uint32_t small[64];
    uint64_t seen_small[64]; /* room for 4,096 features */
} IdList;

static int
ids_init(IdList *list, Py_ssize_t features)
{
    list->ids = list->small;
    list->count = 0;
    list->cap = (Py_ssize_t)(sizeof(list->small) / sizeof(list->small[0]));
    const size_t words = ((size_t)features + 63) / 64;
    if (words <= sizeof(list->seen_small) / sizeof(list->seen_small[0])) {
        list->seen = list->seen_small;
        memset(list->seen, 0, words * sizeof(uint64_t));
    }
    else {
        list->seen = PyMem_Calloc(words, sizeof(uint64_t));
        if (list->seen == NULL) {
            PyErr_NoMemory();
            return -1;
        }
    }
    return 0;
}

static void
ids_free(IdList *list)
{
    if (list->ids != list->small)
        PyMem_Free(list->ids);
    if (list->seen != list->seen_small)
        PyMem_Free(list->seen);
}

/* Add `id` unless it is in already (each known feature counts once). */
static inline int
ids_add(IdList *list, Py_ssize_t id)
{
    uint64_t *word = &list->seen[id >> 6];
    const uint64_t bit = 1ULL << (id & 63);
    if (*word & bit)
        return 0;
    *word |= bit;
    if (list->count == list->cap) {
        void *items = list->ids;
        if (grow_small(&items, list->small, &list->cap, sizeof(uint32_t)) < 0)
            return -1;
        list->ids = items;
    }
    list->ids[list->count++] = (uint32_t)id;
    return 0;
}

#define FEATURE_CHUNK 64 /* characters of a long token lowercased at a time */

/* fold()'s reading of a text model's features off the tokens it scans (see
 * TokenCodes_fold): the ids of the known features of the text's first max_tokens
 * tokens, as feature_ids() finds them, without tokenizing the text again. */
typedef struct {
    const FeatureTable *table;
    IdList found;
    Py_ssize_t tokens;
    int status; /* 0; 1: a token read holds U+03A3 (Python decides) */
    unsigned char *key;
    unsigned char key_small[256];
    uint32_t cp[2 * FEATURE_CHUNK];
} FeatureScan;

static int feature_scan_init(FeatureScan *fs, PyObject *table);
static int feature_token_slow(FeatureScan *fs, PyObject *text, Py_ssize_t start,
                              Py_ssize_t end, int ascii);
static PyObject *feature_scan_result(const FeatureScan *fs);
static void feature_scan_free(FeatureScan *fs);

/* The scan's token text[start:end] for the features: `ascii` when all its characters
 * are; `key` its key as the scan wrote it (ASCII lowercased, zero-padded to 16), when
 * complete (`len` bytes; else NULL), and `hash` its key_hash() when `hashed`. 0, -1 with
 * an exception set. */
static inline int
feature_token(FeatureScan *fs, PyObject *text, Py_ssize_t start, Py_ssize_t end, int ascii,
              const unsigned char *key, size_t len, uint32_t hash, int hashed)
{
    if (fs->status != 0 || fs->tokens >= fs->table->max_tokens)
        return 0;
    if (!ascii || key == NULL)
        return feature_token_slow(fs, text, start, end, ascii);
    fs->tokens++; /* the scan's key is the feature's key */
    const FeatureTable *self = fs->table;
    if (len > self->max_key)
        return 0;
    if (!hashed)
        hash = len <= 16 ? key_hash_short(key, len) : key_hash(key, len);
    const Py_ssize_t id = feature_id_hashed(self, key, len, hash);
    return id >= 0 ? ids_add(&fs->found, id) : 0;
}

typedef struct {
    int64_t best;
    PyObject *hits;    /* NULL: fold codes into best; else append hit tokens */
    PyObject *unknown; /* created on the first unknown token */
    FoldState *fold;   /* non-NULL: fold() (hits is NULL then) */
    FeatureScan *features; /* non-NULL: fold() reads a text model's features too */
} ScanState;

/* The token as a str: lowercased when ASCII, as written otherwise. */
static PyObject *
token_object(PyObject *text, const Pending *t, const unsigned char *key)
{
    if (t->ascii) {
        PyObject *token = PyUnicode_New(t->len, 127);
        if (token != NULL)
            memcpy(PyUnicode_1BYTE_DATA(token), key, t->len);
        return token;
    }
    return PyUnicode_Substring(text, t->start, t->end);
}

/* A token the scan keeps no key of, as handed back: ASCII lowercased, others
 * as written. */
static PyObject *
hopeless_token(PyObject *text, Py_ssize_t start, Py_ssize_t end, int ascii)
{
    if (!ascii)
        return PyUnicode_Substring(text, start, end);
    PyObject *token = PyUnicode_New(end - start, 127);
    if (token != NULL) {
        const int kind = PyUnicode_KIND(text);
        const void *data = PyUnicode_DATA(text);
        Py_UCS1 *out = PyUnicode_1BYTE_DATA(token);
        for (Py_ssize_t m = start; m < end; m++)
            out[m - start] = LOWER[PyUnicode_READ(kind, data, m)];
    }
    return token;
}

static int
append_new(PyObject **list, PyObject *item)
{
    if (item == NULL)
        return -1;
    if (*list == NULL) {
        *list = PyList_New(0);
        if (*list == NULL) {
            Py_DECREF(item);
            return -1;
        }
    }
    int rc = PyList_Append(*list, item);
    Py_DECREF(item);
    return rc;
}

static int
in_alphabet_na(const TokenCodes *self, uint32_t ch)
{
    Py_ssize_t lo = 0, hi = self->alpha_na_count - 1;
    while (lo <= hi) {
        Py_ssize_t mid = (lo + hi) / 2;
        if (ch < self->alpha_na[mid])
            hi = mid - 1;
        else if (ch > self->alpha_na[mid])
            lo = mid + 1;
        else
            return 1;
    }
    return 0;
}

/* The token text[start:end] lowercased as Rust does, into `out` (room for
 * 2 * (end - start) code points); its length, or -1 when it holds U+03A3
 * (whose lowercase only Python decides). */
static Py_ssize_t
lower_token(PyObject *text, Py_ssize_t start, Py_ssize_t end, uint32_t *out)
{
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t k = 0;
    /* one loop per code unit: no kind switch per character */
#define LOWER_RUN(T)                                                                    \
    do {                                                                                \
        const T *d_ = (const T *)data;                                                  \
        for (Py_ssize_t m = start; m < end; m++) {                                      \
            const Py_UCS4 ch = d_[m];                                                   \
            if (ch < 128)                                                               \
                out[k++] = LOWER[ch];                                                   \
            else if (ch == CAPITAL_SIGMA)                                               \
                return -1;                                                              \
            else                                                                        \
                k += lower_non_ascii(ch, out + k);                                      \
        }                                                                               \
    } while (0)
    PER_KIND(kind, LOWER_RUN);
#undef LOWER_RUN
    return k;
}

/* Whether the lowercased token whose prefix sums are `P[0..n]` starts with one
 * of the attached stems (a hash collision only says yes: Python decides). */
static inline int
starts_stem(const TokenCodes *self, const uint64_t *P, Py_ssize_t n)
{
    for (int k = 0; k < self->stem_count && self->stem_lengths[k] <= n; k++) {
        const Py_ssize_t m = self->stem_lengths[k];
        if (variant_present(self->stems, variant_hash(P[m], (size_t)m)))
            return 1;
    }
    return 0;
}

/* Whether a token the scan found too long or too foreign for any keyword may
 * still start with an attached stem (then it is handed back to Python). */
static int
hopeless_starts_stem(const TokenCodes *self, PyObject *text, Py_ssize_t start, Py_ssize_t end)
{
    uint32_t cps[2 * 256];
    uint64_t P[2 * 256 + 1];
    const Py_ssize_t longest = self->stem_lengths[self->stem_count - 1];
    /* each character lowercases to one or more: the first `longest` characters
     * give at least the first `longest` lowercased ones */
    const Py_ssize_t n = lower_token(text, start, end - start > longest ? start + longest : end, cps);
    if (n < 0)
        return 1; /* final sigma: Python decides */
    PREFIX_OF(P, cps, n);
    return starts_stem(self, P, n);
}

static int near_verified(const VariantIndex *vi, const uint64_t *edges, size_t edge_mask,
                         const Py_UCS4 *cps, const uint64_t *P, Py_ssize_t n, int depths);

/* Whether an unknown token is sure to hit nothing: it starts no attached stem,
 * and is neither a keyword nor a typo of one (or is too long or too foreign for
 * one once lowercased): the keywords sharing a deletion variant with it are
 * verified as VariantIndex.typos() does. -1 on an error. `*near` is set to 1 when
 * the token starts no stem and some keyword was verified near it (0 otherwise:
 * nothing near, or Python decides). */
static int
near_nothing(const TokenCodes *self, PyObject *text, const Pending *t, const unsigned char *key,
             int *near_one)
{
    *near_one = 0;
    uint32_t cps[2 * MAX_VARIANT_TOKEN];
    Py_ssize_t n;
    if (t->ascii) {
        n = (Py_ssize_t)t->len;
        if (n > MAX_VARIANT_TOKEN)
            return 0;
        for (Py_ssize_t m = 0; m < n; m++)
            cps[m] = key[m];
    }
    else {
        if (t->end - t->start > MAX_VARIANT_TOKEN)
            return 0;
        n = lower_token(text, t->start, t->end, cps);
        if (n < 0 || n > MAX_VARIANT_TOKEN)
            return 0;
    }
    uint64_t P[MAX_VARIANT_TOKEN + 1];
    PREFIX_OF(P, cps, n);
    if (starts_stem(self, P, n))
        return 0;
    if (!t->ascii) {
        if (self->max_len > 0 && n > self->max_len)
            return 1;
        if (self->max_foreign >= 0) {
            int foreign = 0;
            for (Py_ssize_t m = 0; m < n; m++)
                foreign += cps[m] < 128 ? self->foreign[cps[m]] : !in_alphabet_na(self, cps[m]);
            if (foreign > self->max_foreign)
                return 1;
        }
    }
    if ((size_t)n >= sizeof(self->depths))
        return 0; /* past the depth table (keywords of 250+ characters): Python decides */
    const int near = near_verified(self->variants, self->edges, self->edge_mask, cps, P, n,
                                   self->depths[n]);
    if (near == -1 && PyErr_Occurred())
        return -1;
    *near_one = near == 1;
    return near == 0; /* (-1 without an error: too many candidates, Python decides) */
}

/* Whether two zero-padded 16-byte keys are equal (two word compares). */
static inline int
same16(const unsigned char *a, const unsigned char *b)
{
    uint64_t a0, a1, b0, b1;
    memcpy(&a0, a, 8);
    memcpy(&a1, a + 8, 8);
    memcpy(&b0, b, 8);
    memcpy(&b1, b + 8, 8);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
}

#define PAYLOAD_LIMIT (1 << 15) /* most distinct payloads keep() interns */
#define PAYLOAD_FIELDS 5

/* Add what the known token `t`, whose payload is number `code`, hits to the
 * fold: (entries, hit, hit words, stems, lowered token or None). The token
 * itself matters only for `hit` (the view needs each hitting token); the rest
 * is folded once per payload per call. Only str and tuples are touched, so
 * no Python code runs. */
static int
fold_payload(TokenCodes *self, PyObject *text, const Pending *t, const unsigned char *key,
             ScanState *st, int64_t code)
{
    if (code < 0 || code >= self->payload_count) /* put() by hand: Python decides */
        return append_new(&st->unknown, token_object(text, t, key));
    PyObject *payload = self->payloads[code];
    PyObject *token = PyTuple_GET_ITEM(payload, 4);
    const int folded = self->stamps[code] == self->epoch;
    /* A payload naming its token is that token's alone (payloads are equal only when
     * their tokens are): folded already in this call, it has put that token with its
     * hit in `hitting` too, so a repeat does nothing at all. */
    if (folded && token != Py_None)
        return 0;
    PyObject *hit = PyTuple_GET_ITEM(payload, 1);
    FoldState *f = st->fold;
    if (PyTuple_GET_SIZE(hit) > 0 && f->log != NULL) {
        /* logged (a repeat of a shared payload's token is logged again: harmless; the
         * engine's payloads with a hit all name their token) */
        PyObject *held = token != Py_None ? Py_NewRef(token) : token_object(text, t, key);
        if (held == NULL || hit_log_add(f->log, held, hit) < 0)
            return -1;
    }
    else if (PyTuple_GET_SIZE(hit) > 0) {
        int put = 1;
        if (token == Py_None && t->ascii) {
            for (int k = 0; k < f->seen_count; k++) {
                if (f->seen_hash[k] == t->hash &&
                    PyUnicode_GET_LENGTH(f->seen[k]) == (Py_ssize_t)t->len &&
                    memcmp(PyUnicode_1BYTE_DATA(f->seen[k]), key, t->len) == 0) {
                    put = 0; /* already in `hitting`, mapped to this payload's hit */
                    break;
                }
            }
        }
        if (put) {
            int fresh = token == Py_None;
            if (fresh) {
                token = token_object(text, t, key);
                if (token == NULL)
                    return -1;
            }
            else {
                Py_INCREF(token); /* (the kept str: its hash is cached, nothing made) */
            }
            int rc = PyDict_SetItem(f->hitting, token, hit);
            if (rc == 0 && fresh && t->ascii && f->seen_count < FOLD_SEEN) {
                f->seen_hash[f->seen_count] = t->hash;
                f->seen[f->seen_count++] = token; /* (our reference, dropped by fold()) */
            }
            else {
                Py_DECREF(token);
            }
            if (rc < 0)
                return -1;
        }
    }
    if (folded)
        return 0;
    self->stamps[code] = self->epoch;
    PyObject *entries = PyTuple_GET_ITEM(payload, 0);
    if (PyTuple_GET_SIZE(entries) > 0 && PyList_Append(f->entries, entries) < 0)
        return -1;
    PyObject *words = PyTuple_GET_ITEM(payload, 2);
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(words); k++) {
        if (PySet_Add(f->words, PyTuple_GET_ITEM(words, k)) < 0)
            return -1;
    }
    PyObject *stems = PyTuple_GET_ITEM(payload, 3);
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(stems); k++) {
        if (PySet_Add(f->prefixes, PyTuple_GET_ITEM(stems, k)) < 0)
            return -1;
    }
    return 0;
}

static PyObject *VariantIndex_typos(VariantIndex *self, PyObject *const *args,
                                    Py_ssize_t nargs);
static Py_ssize_t payload_code(TokenCodes *self, PyObject *payload);

#define RESOLVE_SMALL 16 /* entries or words of a new token held on the stack */

/* A place of a new token: a keyword's (rank, pos, rule) as attach_resolver() was given
 * it (checked there: ints within range), and whether it was hit by typo. */
typedef struct {
    Py_ssize_t rank, fuzzy, pos, index;
    PyObject *place; /* borrowed from the resolver's tables */
} Place;

/* Append the places of `keyword` in `table` (a dict of tuples of places) to `places`;
 * -1 on an error (past `cap` places: 1, Python decides). */
static int
add_places(PyObject *table, PyObject *keyword, int fuzzy, Place *places, Py_ssize_t *count,
           Py_ssize_t cap)
{
    PyObject *found = PyDict_GetItemWithError(table, keyword);
    if (found == NULL)
        return PyErr_Occurred() ? -1 : 0;
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(found); k++) {
        if (*count >= cap)
            return 1;
        PyObject *place = PyTuple_GET_ITEM(found, k);
        Place *p = &places[(*count)++];
        p->rank = PyLong_AsSsize_t(PyTuple_GET_ITEM(place, 0));
        p->fuzzy = fuzzy;
        p->pos = PyLong_AsSsize_t(PyTuple_GET_ITEM(place, 1));
        p->index = PyLong_AsSsize_t(PyTuple_GET_ITEM(place, 2));
        p->place = place;
    }
    return 0;
}

/* The shared match of rule `index` won by its keyword `pos` (None for a rule that needs
 * a context or a condition), as CompiledRules._free_match makes it: RuleMatch(index,
 * label, keyword, fuzzy, None, ()), made on first need and kept (borrowed). */
static PyObject *
resolver_match(TokenCodes *self, const Place *p)
{
    if (!self->res_free[p->index])
        return Py_None;
    PyObject **slot = &self->res_matches[2 * (self->res_base[p->index] + p->pos) + p->fuzzy];
    if (*slot == NULL) {
        PyTypeObject *type = self->res_match_type;
        PyObject *match = type->tp_alloc(type, 6);
        if (match == NULL)
            return NULL;
        PyTuple_SET_ITEM(match, 0, Py_NewRef(PyTuple_GET_ITEM(p->place, 2)));
        PyTuple_SET_ITEM(match, 1, Py_NewRef(PyTuple_GET_ITEM(self->res_labels, p->index)));
        PyTuple_SET_ITEM(match, 2,
                         Py_NewRef(PyTuple_GET_ITEM(PyTuple_GET_ITEM(self->res_keywords, p->index),
                                                    p->pos)));
        PyTuple_SET_ITEM(match, 3, Py_NewRef(p->fuzzy ? Py_True : Py_False));
        PyTuple_SET_ITEM(match, 4, Py_NewRef(Py_None));
        PyTuple_SET_ITEM(match, 5, PyTuple_New(0));
        *slot = match;
    }
    return *slot;
}

/* The engine's entry (rank, fuzzy, pos, index, match) of a place (new reference). */
static PyObject *
resolver_entry(TokenCodes *self, const Place *p)
{
    PyObject *match = resolver_match(self, p);
    if (match == NULL)
        return NULL;
    PyObject *fuzzy = PyLong_FromSsize_t(p->fuzzy);
    if (fuzzy == NULL)
        return NULL;
    PyObject *entry = PyTuple_Pack(5, PyTuple_GET_ITEM(p->place, 0), fuzzy,
                                   PyTuple_GET_ITEM(p->place, 1), PyTuple_GET_ITEM(p->place, 2),
                                   match);
    Py_DECREF(fuzzy);
    return entry;
}

/* Whether `a` orders before `b` as the engine's (rank, fuzzy, pos) entries do. */
static inline int
place_before(const Place *a, const Place *b)
{
    if (a->rank != b->rank)
        return a->rank < b->rank;
    if (a->fuzzy != b->fuzzy)
        return a->fuzzy < b->fuzzy;
    return a->pos < b->pos;
}

/* A new token (lowercased as Rust does: `token`) that near_nothing() found near a keyword
 * or word and that starts no stem, resolved as CompiledRules._new_token() resolves it
 * (with the tables attach_resolver() was given): its entries (each rule's best of its
 * exact and typo entries, in rank order), its hit ((token, False) when it is a word,
 * then (word, True) for each word it is a typo of, in sorted order) and no stems;
 * kept in the table as CompiledRules._resolve_new() keeps it and folded as a known
 * token is. 1 when done, 0 when Python decides (too many entries, payloads full),
 * -1 on an error. */
static int
resolve_new(TokenCodes *self, PyObject *text, const Pending *t, const unsigned char *key,
            ScanState *st)
{
    Place places[RESOLVE_SMALL];
    PyObject *words[RESOLVE_SMALL];
    Py_ssize_t nplaces = 0, nwords = 0;
    int rc = -1;
    PyObject *typos = NULL, *got = NULL, *hit = NULL, *hit_words = NULL, *payload = NULL;
    PyObject *token;
    Py_ssize_t length = (Py_ssize_t)t->len;
    if (t->ascii) {
        token = token_object(text, t, key);
    }
    else { /* lowercased as Rust does (near_nothing() kept it within the depth table) */
        uint32_t cps[2 * MAX_VARIANT_TOKEN];
        length = lower_token(text, t->start, t->end, cps);
        if (length < 0 || length >= (Py_ssize_t)sizeof(self->depths))
            return 0; /* (a final sigma: Python decides) */
        token = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, cps, length);
    }
    if (token == NULL)
        return -1;
    const unsigned char depth = self->depths[length];
    if (depth) {
        PyObject *level = PyLong_FromLong(depth);
        if (level == NULL)
            goto done;
        PyObject *args[2] = {token, level};
        typos = VariantIndex_typos(self->variants, args, 2);
        Py_DECREF(level);
        if (typos == NULL)
            goto done;
    }
    const Py_ssize_t ntypos = typos == NULL ? 0 : PyList_GET_SIZE(typos);
    /* the entries: the exact ones, then each typo keyword's */
    int over = add_places(self->res_exact, token, 0, places, &nplaces, RESOLVE_SMALL);
    for (Py_ssize_t k = 0; over == 0 && k < ntypos; k++)
        over = add_places(self->res_typo, PyList_GET_ITEM(typos, k), 1, places, &nplaces,
                          RESOLVE_SMALL);
    if (over != 0) {
        rc = over < 0 ? -1 : 0;
        goto done;
    }
    for (Py_ssize_t a = 1; a < nplaces; a++) { /* (a handful: insertion sort) */
        const Place p = places[a];
        Py_ssize_t b = a;
        for (; b > 0 && place_before(&p, &places[b - 1]); b--)
            places[b] = places[b - 1];
        places[b] = p;
    }
    Py_ssize_t kept = 0;
    for (Py_ssize_t a = 0; a < nplaces; a++) { /* each rule's first (best) entry */
        if (kept == 0 || places[a].rank != places[kept - 1].rank)
            places[kept++] = places[a];
    }
    got = PyTuple_New(kept);
    if (got == NULL)
        goto done;
    for (Py_ssize_t a = 0; a < kept; a++) {
        PyObject *entry = resolver_entry(self, &places[a]);
        if (entry == NULL)
            goto done;
        PyTuple_SET_ITEM(got, a, entry);
    }
    /* the words: the token itself, then its typo words in sorted order */
    int exact_word = 0;
    if (self->res_word_exact != Py_None) {
        exact_word = PySet_Contains(self->res_word_exact, token);
        if (exact_word < 0)
            goto done;
        for (Py_ssize_t k = 0; k < ntypos; k++) {
            PyObject *keyword = PyList_GET_ITEM(typos, k);
            const int in = PySet_Contains(self->res_word_typo, keyword);
            if (in < 0)
                goto done;
            if (!in)
                continue;
            if (nwords >= RESOLVE_SMALL) {
                rc = 0;
                goto done;
            }
            Py_ssize_t b = nwords++;
            for (; b > 0; b--) {
                const int order = PyUnicode_Compare(keyword, words[b - 1]);
                if (order == -1 && PyErr_Occurred())
                    goto done;
                if (order >= 0)
                    break;
                words[b] = words[b - 1];
            }
            words[b] = keyword;
        }
    }
    const Py_ssize_t nhit = exact_word + nwords;
    hit = PyTuple_New(nhit);
    hit_words = PyTuple_New(nhit);
    if (hit == NULL || hit_words == NULL)
        goto done;
    for (Py_ssize_t a = 0; a < nhit; a++) {
        PyObject *word = a < exact_word ? token : words[a - exact_word];
        PyObject *pair = PyTuple_Pack(2, word, a < exact_word ? Py_False : Py_True);
        if (pair == NULL)
            goto done;
        PyTuple_SET_ITEM(hit, a, pair);
        PyTuple_SET_ITEM(hit_words, a, Py_NewRef(word));
    }
    self->resolved++;
    if (nhit == 0 && kept == 0) { /* near a keyword, yet it hits nothing */
        rc = put_key(self, key, t->len, NO_HIT) < 0 ? -1 : 1;
        goto done;
    }
    PyObject *none = PyTuple_New(0);
    if (none == NULL)
        goto done;
    payload = nhit ? PyTuple_Pack(5, got, hit, hit_words, none, token)
                   : PyTuple_Pack(5, got, none, none, none, Py_None);
    Py_DECREF(none);
    if (payload == NULL)
        goto done;
    const Py_ssize_t code = payload_code(self, payload);
    if (code == -1)
        goto done;
    if (code == -2) { /* the payloads are full: Python decides, as keep() refuses it */
        self->resolved--;
        rc = 0;
        goto done;
    }
    if (put_key(self, key, t->len, code) < 0)
        goto done;
    rc = fold_payload(self, text, t, key, st, code) < 0 ? -1 : 1;
done:
    Py_DECREF(token);
    Py_XDECREF(typos);
    Py_XDECREF(got);
    Py_XDECREF(hit);
    Py_XDECREF(hit_words);
    Py_XDECREF(payload);
    return rc;
}

/* Probe one token (its slot prefetched earlier, ideally). */
static inline int
probe(TokenCodes *self, PyObject *text, const Pending *t, const unsigned char *key,
      ScanState *st)
{
    Slot *slots = self->slots;
    const size_t mask = self->mask;
    size_t j = (size_t)t->hash & mask;
    Slot *s;
    for (;;) {
        s = &slots[j];
        if (s->hash == 0) {
            /* (while the table grows, the token may still be in the old array) */
            if (self->old != NULL && (s = find_old(self, t->hash, key, t->len)) != NULL)
                break;
            if (self->variants != NULL) {
                int near = 0;
                const int nothing = near_nothing(self, text, t, key, &near);
                if (nothing < 0)
                    return -1;
                if (nothing) {
                    self->settled++; /* no keyword near it: hits nothing */
                    return put_key(self, key, t->len, NO_HIT);
                }
                if (near && st->fold != NULL && self->res_exact != NULL &&
                    t->end - t->start <= self->res_keep) {
                    const int done = resolve_new(self, text, t, key, st);
                    if (done != 0)
                        return done < 0 ? -1 : 0;
                }
            }
            return append_new(&st->unknown, token_object(text, t, key));
        }
        if (s->hash == t->hash && slot_len(s) == t->len &&
            (t->len <= INLINE_KEY ? same16(s->key.small, key)
                                  : memcmp(s->key.big, key, t->len) == 0))
            break;
        j = (j + 1) & mask;
    }
    if (!(s->lenref & REF))
        s->lenref |= REF;
    if (st->fold != NULL) {
        if (s->code == NO_HIT)
            return 0;
        return fold_payload(self, text, t, key, st, s->code);
    }
    if (st->hits == NULL) {
        if (s->code < st->best)
            st->best = s->code;
    }
    else if (s->code != NO_HIT) {
        return append_new(&st->hits, token_object(text, t, key));
    }
    return 0;
}

static inline int
flush(TokenCodes *self, PyObject *text, Pending *batch, int pending, ScanState *st)
{
    for (int b = 0; b < pending; b++) {
        if (probe(self, text, &batch[b], batch[b].key, st) < 0)
            return -1;
    }
    return 0;
}

/* Scan text of one kind: every token once, known ones folded, unknown ones
 * collected. Inlined per kind (forced: left to itself, the compiler makes one copy
 * for every kind, which reads each character through the kind switch). */
static inline Py_ALWAYS_INLINE int
scan_text(TokenCodes *self, PyObject *text, int kind, int ascii, const void *data,
          Py_ssize_t n, ScanState *st)
{
    Pending batch[SCAN_BATCH];
    int pending = 0;
    const Py_ssize_t max_len = self->max_len;
    const int max_foreign = self->max_foreign;
    const uint8_t *foreign = self->foreign;
    Py_ssize_t i = 0;
    while (i < n) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if (ascii ? !LOWER[ch] : !is_token_char(ch)) {
            i++;
            continue;
        }
        const Py_ssize_t start = i;
        Pending *t = &batch[pending];
        unsigned char *key = t->key;
        memset(key, 0, 16); /* short keys are compared and hashed as two words */
        unsigned char *heap = NULL;
        size_t cap = BATCH_KEY, len = 0;
        int foreign_count = 0, all_ascii = 1, hopeless = 0;
        for (;;) {
            if (ch < 128) {
                foreign_count += foreign[ch];
                if (len + 1 > cap)
                    goto spill;
                key[len++] = LOWER[ch];
            }
            else {
                all_ascii = 0;
                if (len + 4 > cap)
                    goto spill;
                len += (size_t)put_key_char(key + len, ch);
            }
            goto next;
        spill:
            if (max_len > 0) { /* past BATCH_KEY bytes is past max_len only if it is small */
                if (i - start >= max_len) {
                    hopeless = 1;
                    goto next;
                }
            }
            if (heap == NULL) {
                size_t want = (size_t)(n - start) * 4 + 4;
                heap = PyMem_Malloc(want);
                if (heap == NULL) {
                    PyErr_NoMemory();
                    return -1;
                }
                memcpy(heap, key, len);
                key = heap;
                cap = want;
            }
            if (ch < 128)
                key[len++] = LOWER[ch];
            else
                len += (size_t)put_key_char(key + len, ch);
        next:
            if (++i >= n)
                break;
            ch = PyUnicode_READ(kind, data, i);
            if (ascii ? !LOWER[ch] : !is_token_char(ch))
                break;
        }
        if (hopeless || (max_len > 0 && i - start > max_len) ||
            (max_foreign >= 0 && foreign_count > max_foreign)) {
            /* (the key is whole unless it was cut short or spilled) */
            if (st->features != NULL &&
                feature_token(st->features, text, start, i, all_ascii,
                              hopeless || heap != NULL ? NULL : key, len, 0, 0) < 0) {
                if (heap != NULL)
                    PyMem_Free(heap);
                return -1;
            }
            if (heap != NULL)
                PyMem_Free(heap);
            /* can match no keyword: no hit, nothing stored; unless it may start
             * a stem, then it is handed back as an unknown token each time, after
             * the batched tokens before it (the lists keep the text's order) */
            if (self->stem_count > 0 && hopeless_starts_stem(self, text, start, i)) {
                int rc = flush(self, text, batch, pending, st);
                pending = 0;
                if (rc < 0 ||
                    append_new(&st->unknown, hopeless_token(text, start, i, all_ascii)) < 0)
                    return -1;
            }
            continue;
        }
        t->start = start;
        t->end = i;
        t->len = (uint32_t)len;
        t->ascii = all_ascii;
        t->hash = heap != NULL ? table_hash(self, key, len) : table_hash_padded(self, key, len);
        /* (the table's hash is key_hash() of the key, unless a test makes keys collide) */
        if (st->features != NULL &&
            feature_token(st->features, text, start, i, all_ascii, key, len, t->hash,
                          !self->collide) < 0) {
            if (heap != NULL)
                PyMem_Free(heap);
            return -1;
        }
        if (heap != NULL) { /* a long key: probe now, in order */
            int rc = flush(self, text, batch, pending, st);
            pending = 0;
            if (rc == 0)
                rc = probe(self, text, t, heap, st);
            PyMem_Free(heap);
            if (rc < 0)
                return -1;
            continue;
        }
        PREFETCH(&self->slots[t->hash & self->mask]);
        if (++pending == SCAN_BATCH) {
            if (flush(self, text, batch, pending, st) < 0)
                return -1;
            pending = 0;
        }
    }
    return flush(self, text, batch, pending, st);
}

static int
scan_any(TokenCodes *self, PyObject *text, ScanState *st)
{
    const void *data = PyUnicode_DATA(text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (PyUnicode_IS_ASCII(text))
        return scan_text(self, text, PyUnicode_1BYTE_KIND, 1, data, n, st);
    if (PyUnicode_KIND(text) == PyUnicode_1BYTE_KIND)
        return scan_text(self, text, PyUnicode_1BYTE_KIND, 0, data, n, st);
    if (PyUnicode_KIND(text) == PyUnicode_2BYTE_KIND)
        return scan_text(self, text, PyUnicode_2BYTE_KIND, 0, data, n, st);
    return scan_text(self, text, PyUnicode_4BYTE_KIND, 0, data, n, st);
}

PyDoc_STRVAR(scan_doc,
"scan(text, best, /) -> int | tuple[int, list[str]]\n--\n\n"
"The smallest of ``best`` and the codes of the tokens of ``text`` when the\n"
"table knows every token; otherwise ``(that smallest over the known tokens,\n"
"the unknown tokens)`` -- ASCII ones lowercased, others as written, repeats\n"
"possible. Tokens that can never match count as no hit. ``best`` must be\n"
"non-negative.");

static PyObject *
TokenCodes_scan_locked(TokenCodes *self, PyObject *const *args, Py_ssize_t nargs)
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
    ScanState st = {best, NULL, NULL, NULL, NULL};
    if (scan_any(self, text, &st) < 0) {
        Py_XDECREF(st.unknown);
        return NULL;
    }
    if (st.unknown == NULL)
        return PyLong_FromLongLong(st.best);
    PyObject *out = Py_BuildValue("(LN)", (long long)st.best, st.unknown);
    return out;
}

static PyObject *
TokenCodes_scan(TokenCodes *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *result;
    Py_BEGIN_CRITICAL_SECTION(self);
    result = TokenCodes_scan_locked(self, args, nargs);
    Py_END_CRITICAL_SECTION();
    return result;
}

PyDoc_STRVAR(hits_doc,
"hits(text, /) -> tuple[list[str], list[str]]\n--\n\n"
"``(the known tokens of text that hit some rule, the unknown tokens)``, in\n"
"order, repeats kept; tokens as :meth:`scan` gives them.");

static PyObject *
TokenCodes_hits_locked(TokenCodes *self, PyObject *text)
{
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "hits() text must be str");
        return NULL;
    }
    PyObject *found = PyList_New(0);
    if (found == NULL)
        return NULL;
    ScanState st = {0, found, NULL, NULL, NULL};
    if (scan_any(self, text, &st) < 0) {
        Py_DECREF(st.hits);
        Py_XDECREF(st.unknown);
        return NULL;
    }
    if (st.unknown == NULL) {
        st.unknown = PyList_New(0);
        if (st.unknown == NULL) {
            Py_DECREF(st.hits);
            return NULL;
        }
    }
    return Py_BuildValue("(NN)", st.hits, st.unknown);
}

static PyObject *
TokenCodes_hits(TokenCodes *self, PyObject *text)
{
    PyObject *result;
    Py_BEGIN_CRITICAL_SECTION(self);
    result = TokenCodes_hits_locked(self, text);
    Py_END_CRITICAL_SECTION();
    return result;
}

static int dict_get_ref(PyObject *dict, PyObject *key, PyObject **out);

PyDoc_STRVAR(fold_doc,
"fold(text, entries, words, prefixes, hitting, features=None, /)\n"
"    -> list[str] | tuple[list[str], bytes | None]\n--\n\n"
"One scan of ``text`` against a table filled by :meth:`keep`: the payload of\n"
"each known token that hits something is folded into the accumulators\n"
"(its entries tuple appended to the list ``entries`` when non-empty, its hit\n"
"words added to the set ``words``, its stems to the set ``prefixes``, and the\n"
"token mapped to its hit in the dict ``hitting`` when it hits a word), each\n"
"payload once per call. Returns the unknown tokens, as :meth:`hits` does.\n"
"With ``features``, a FeatureTable: ``(the unknown tokens, the ids of the known\n"
"features of the text's tokens)``, read on the same pass, for\n"
"``features.sums_of`` (``None`` where ``features.sums(text, ...)`` gives None).");

static PyObject *
fold_logged(TokenCodes *self, PyObject *const *args, Py_ssize_t nargs, HitLog *log);

static PyObject *
TokenCodes_fold_locked(TokenCodes *self, PyObject *const *args, Py_ssize_t nargs)
{
    return fold_logged(self, args, nargs, NULL);
}

/* fold(), with the known hitting tokens logged in `log` when it is not NULL (the
 * walker's match) instead of put in the dict. */
static PyObject *
fold_logged(TokenCodes *self, PyObject *const *args, Py_ssize_t nargs, HitLog *log)
{
    if ((nargs != 5 && nargs != 6) || !PyUnicode_Check(args[0]) || !PyList_Check(args[1]) ||
        !PySet_Check(args[2]) || !PySet_Check(args[3]) || !PyDict_Check(args[4])) {
        PyErr_SetString(PyExc_TypeError,
                        "fold() takes a str, a list, two sets and a dict (and a FeatureTable)");
        return NULL;
    }
    PyObject *table = nargs == 6 ? args[5] : NULL;
    if (table != NULL) { /* a FeatureTable of any module object of this extension */
        PyObject *module = PyType_GetModuleByDef(Py_TYPE(table), &speedups_module);
        if (module == NULL)
            PyErr_Clear();
        if (module == NULL || Py_TYPE(table) != speedups_state(module)->FeatureTableType) {
            PyErr_SetString(PyExc_TypeError, "fold() features must be a FeatureTable");
            return NULL;
        }
    }
    if (++self->epoch == 0) { /* wrapped: no stamp may look current */
        if (self->stamps != NULL)
            memset(self->stamps, 0, (size_t)self->payload_cap * sizeof(uint32_t));
        self->epoch = 1;
    }
    FoldState fold = {args[1], args[2], args[3], args[4], log, 0, {0}, {NULL}};
    ScanState st = {0, NULL, NULL, &fold, NULL};
    FeatureScan reading; /* (on the stack: about 1.6 kB) */
    FeatureScan *features = NULL;
    if (table != NULL) {
        if (feature_scan_init(&reading, table) < 0)
            return NULL;
        features = st.features = &reading;
    }
    const int failed = scan_any(self, args[0], &st) < 0;
    for (int k = 0; k < fold.seen_count; k++)
        Py_DECREF(fold.seen[k]);
    PyObject *out = NULL;
    if (!failed) {
        out = st.unknown != NULL ? st.unknown : PyList_New(0);
        st.unknown = NULL;
        if (out != NULL && features != NULL) {
            PyObject *ids = feature_scan_result(features);
            if (ids == NULL)
                Py_CLEAR(out);
            else
                out = pair_steal(out, ids);
        }
    }
    Py_XDECREF(st.unknown);
    if (features != NULL)
        feature_scan_free(features);
    return out;
}

static PyObject *
TokenCodes_fold(TokenCodes *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *result;
    Py_BEGIN_CRITICAL_SECTION(self);
    result = TokenCodes_fold_locked(self, args, nargs);
    Py_END_CRITICAL_SECTION();
    return result;
}

/* Whether every item of `tuple` is a str. */
static int
all_str(PyObject *tuple)
{
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(tuple); k++) {
        if (!PyUnicode_Check(PyTuple_GET_ITEM(tuple, k)))
            return 0;
    }
    return 1;
}

/* The code of `payload` (a valid one), interned on first sight; -2 when the
 * table of payloads is full, -1 on error. */
static Py_ssize_t
payload_code(TokenCodes *self, PyObject *payload)
{
    if (self->payload_codes == NULL) {
        self->payload_codes = PyDict_New();
        if (self->payload_codes == NULL)
            return -1;
    }
    PyObject *found = NULL;
    if (dict_get_ref(self->payload_codes, payload, &found) < 0)
        return -1;
    if (found != NULL) {
        Py_ssize_t code = PyLong_AsSsize_t(found);
        Py_DECREF(found);
        return code;
    }
    if (self->payload_count >= PAYLOAD_LIMIT)
        return -2;
    if (self->payload_count == self->payload_cap) {
        Py_ssize_t cap = self->payload_cap ? self->payload_cap * 2 : 64;
        PyObject **items = PyMem_Realloc(self->payloads, (size_t)cap * sizeof(PyObject *));
        if (items == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        self->payloads = items;
        uint32_t *stamps = PyMem_Realloc(self->stamps, (size_t)cap * sizeof(uint32_t));
        if (stamps == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        memset(stamps + self->payload_cap, 0,
               (size_t)(cap - self->payload_cap) * sizeof(uint32_t));
        self->stamps = stamps;
        self->payload_cap = cap;
    }
    const Py_ssize_t code = self->payload_count;
    PyObject *number = PyLong_FromSsize_t(code);
    if (number == NULL)
        return -1;
    int rc = PyDict_SetItem(self->payload_codes, payload, number);
    Py_DECREF(number);
    if (rc < 0)
        return -1;
    Py_INCREF(payload);
    self->payloads[code] = payload;
    self->stamps[code] = 0;
    self->payload_count++;
    return code;
}

PyDoc_STRVAR(keep_doc,
"keep(token, payload, /) -> bool\n--\n\n"
"Record what ``token`` (as :meth:`fold` handed it back, or any spelling of it)\n"
"hits, for :meth:`fold`: ``None`` (nothing) or ``(entries, hit, hit_words,\n"
"stems, lowered)`` -- tuples, the last two of str, and ``lowered`` the token\n"
"as the view knows it (``None``: the scan's ASCII lowercasing, a new str put\n"
"in ``hitting`` each call; a str is put as it is, its hash cached). Equal payloads\n"
"are stored once; past 32,768 distinct ones a new one is not kept (False),\n"
"and the token stays unknown. A table given payloads must not be given\n"
"codes by :meth:`put`.");

static PyObject *
TokenCodes_keep_locked(TokenCodes *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyUnicode_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "keep() takes a str and a payload or None");
        return NULL;
    }
    PyObject *payload = args[1];
    int64_t code = NO_HIT;
    if (payload != Py_None) {
        if (!PyTuple_CheckExact(payload) || PyTuple_GET_SIZE(payload) != PAYLOAD_FIELDS ||
            !PyTuple_Check(PyTuple_GET_ITEM(payload, 0)) ||
            !PyTuple_Check(PyTuple_GET_ITEM(payload, 1)) ||
            !PyTuple_Check(PyTuple_GET_ITEM(payload, 2)) ||
            !PyTuple_Check(PyTuple_GET_ITEM(payload, 3)) ||
            !all_str(PyTuple_GET_ITEM(payload, 2)) || !all_str(PyTuple_GET_ITEM(payload, 3)) ||
            !(PyTuple_GET_ITEM(payload, 4) == Py_None ||
              PyUnicode_Check(PyTuple_GET_ITEM(payload, 4)))) {
            PyErr_SetString(PyExc_TypeError,
                            "keep() payload must be None or (tuple, tuple, tuple of str, "
                            "tuple of str, str or None)");
            return NULL;
        }
        Py_ssize_t got = payload_code(self, payload);
        if (got == -1)
            return NULL;
        if (got == -2)
            Py_RETURN_FALSE;
        code = got;
    }
    unsigned char small[256];
    size_t len;
    unsigned char *key = key_of(args[0], &len, small, sizeof(small));
    if (key == NULL)
        return NULL;
    int rc = len ? put_key(self, key, len, code) : 0;
    if (key != small)
        PyMem_Free(key);
    if (rc < 0)
        return NULL;
    Py_RETURN_TRUE;
}

static PyObject *
TokenCodes_keep(TokenCodes *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *result;
    Py_BEGIN_CRITICAL_SECTION(self);
    result = TokenCodes_keep_locked(self, args, nargs);
    Py_END_CRITICAL_SECTION();
    return result;
}

PyDoc_STRVAR(put_doc,
"put(token, code, /) -> None\n--\n\n"
"Record the engine's code for ``token`` (as :meth:`scan` handed it back, or\n"
"any spelling of it); ``None`` means it hits nothing.");

static PyObject *
TokenCodes_put_locked(TokenCodes *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyUnicode_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "put() takes a str and an int or None");
        return NULL;
    }
    int64_t code = NO_HIT;
    if (args[1] != Py_None) {
        long long v = PyLong_AsLongLong(args[1]);
        if (v == -1 && PyErr_Occurred())
            return NULL;
        if (v < 0) {
            PyErr_SetString(PyExc_ValueError, "put() code must be non-negative");
            return NULL;
        }
        code = v;
    }
    unsigned char small[256];
    size_t len;
    unsigned char *key = key_of(args[0], &len, small, sizeof(small));
    if (key == NULL)
        return NULL;
    int rc = len ? put_key(self, key, len, code) : 0;
    if (key != small)
        PyMem_Free(key);
    if (rc < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *
TokenCodes_put(TokenCodes *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *result;
    Py_BEGIN_CRITICAL_SECTION(self);
    result = TokenCodes_put_locked(self, args, nargs);
    Py_END_CRITICAL_SECTION();
    return result;
}

/* dict[key] as a new reference in *out (NULL when absent): 0, or -1 on error.
 * Never a borrowed reference, which another thread could free (3.13+). */
static int
dict_get_ref(PyObject *dict, PyObject *key, PyObject **out)
{
#if PY_VERSION_HEX >= 0x030D0000
    return PyDict_GetItemRef(dict, key, out) < 0 ? -1 : 0;
#else
    *out = PyDict_GetItemWithError(dict, key);
    if (*out == NULL)
        return PyErr_Occurred() ? -1 : 0;
    Py_INCREF(*out);
    return 0;
#endif
}

/* Whether `token` is a non-empty str of lowercase ASCII letters and digits. */
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
TokenCodes_remember_locked(TokenCodes *self, PyObject *const *args, Py_ssize_t nargs)
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
        PyObject *found = NULL;
        if (dict_get_ref(codes, token, &found) < 0) {
            Py_DECREF(token);
            Py_DECREF(it);
            return NULL;
        }
        if (found != NULL) {
            long long v = PyLong_AsLongLong(found);
            Py_DECREF(found);
            if (v == -1 && PyErr_Occurred()) {
                Py_DECREF(token);
                Py_DECREF(it);
                return NULL;
            }
            code = v;
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
        int rc = put_key(self, PyUnicode_1BYTE_DATA(token),
                         (size_t)PyUnicode_GET_LENGTH(token), code);
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

static PyObject *
TokenCodes_remember(TokenCodes *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *result;
    Py_BEGIN_CRITICAL_SECTION(self);
    result = TokenCodes_remember_locked(self, args, nargs);
    Py_END_CRITICAL_SECTION();
    return result;
}

PyDoc_STRVAR(get_doc,
"get(token, /) -> int | None\n--\n\n"
"The code recorded for ``token``; ``None`` if unknown (no hit reads as -1).");

static PyObject *
TokenCodes_get_locked(TokenCodes *self, PyObject *token)
{
    if (!PyUnicode_Check(token))
        Py_RETURN_NONE;
    unsigned char small[256];
    size_t len;
    unsigned char *key = key_of(token, &len, small, sizeof(small));
    if (key == NULL)
        return NULL;
    const uint32_t h = table_hash(self, key, len);
    Slot *s = find_slot(self->slots, self->mask, h, key, len);
    if (s->hash == 0 && self->old != NULL) {
        Slot *o = find_old(self, h, key, len);
        if (o != NULL)
            s = o;
    }
    if (key != small)
        PyMem_Free(key);
    if (s->hash == 0 || len == 0)
        Py_RETURN_NONE;
    return PyLong_FromLongLong(s->code == NO_HIT ? -1 : s->code);
}

static PyObject *
TokenCodes_get(TokenCodes *self, PyObject *token)
{
    PyObject *result;
    Py_BEGIN_CRITICAL_SECTION(self);
    result = TokenCodes_get_locked(self, token);
    Py_END_CRITICAL_SECTION();
    return result;
}

PyDoc_STRVAR(lower_doc,
"lower(token, /) -> str | None\n--\n\n"
"``token`` lowercased as the scan lowercases the tokens it settles (Rust's\n"
"lowercasing, from the generated table); ``None`` if it holds U+03A3.");

static PyObject *
TokenCodes_lower(TokenCodes *self, PyObject *token)
{
    if (!PyUnicode_Check(token)) {
        PyErr_SetString(PyExc_TypeError, "lower() token must be str");
        return NULL;
    }
    const Py_ssize_t n = PyUnicode_GET_LENGTH(token);
    uint32_t *out = PyMem_Malloc(((size_t)n * 2 + 1) * sizeof(uint32_t));
    if (out == NULL)
        return PyErr_NoMemory();
    Py_ssize_t k = lower_token(token, 0, n, out);
    PyObject *result;
    if (k < 0) {
        result = Py_None;
        Py_INCREF(result);
    }
    else {
        result = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out, k);
    }
    PyMem_Free(out);
    return result;
}

/* The edge filter of `vi` for the token lengths whose `depths` allow two deletions,
 * and its bits - 1 in `*mask`; NULL with an error set. */
static uint64_t *
edge_filter(const VariantIndex *vi, const unsigned char *depths, size_t *mask)
{
    PyObject *keywords = vi->keywords;
    const Py_ssize_t count = PyTuple_GET_SIZE(keywords);
    /* two passes: the first counts an upper bound of the bits put (edge_add() puts
     * at most 4 a side for kd = 0, 18 for 1, 52 for 2), the second puts them */
    static const size_t most[3] = {4, 18, 52};
    size_t bound = 0, bits = 64;
    uint64_t *edges = NULL;
    for (int pass = 0; pass < 2; pass++) {
        for (Py_ssize_t i = 0; i < count; i++) {
            const int cap = vi->caps[i];
            if (cap == 0)
                continue;
            PyObject *k = PyTuple_GET_ITEM(keywords, i);
            const Py_ssize_t kn = PyUnicode_GET_LENGTH(k);
            Py_UCS4 head[EDGE + 2], tail[EDGE + 2]; /* (all edge_add() reads) */
            int read = 0;
            for (int kd = cap == 2 ? 0 : 1; kd <= cap; kd++) {
                const Py_ssize_t n = kn - kd + 2; /* the token length it serves */
                if (kn - kd < 1 || n >= 256 || !(depths[n] & 4))
                    continue;
                if (pass == 0) {
                    bound += 2 * most[kd];
                    continue;
                }
                if (!read) {
                    const int kind = PyUnicode_KIND(k);
                    const void *data = PyUnicode_DATA(k);
                    for (Py_ssize_t m = 0; m < kn && m < EDGE + 2; m++) {
                        head[m] = PyUnicode_READ(kind, data, m);
                        tail[m] = PyUnicode_READ(kind, data, kn - 1 - m);
                    }
                    read = 1;
                }
                edge_add(edges, bits - 1, head, kn, kd, 0);
                edge_add(edges, bits - 1, tail, kn, kd, 1);
            }
        }
        if (pass == 0) {
            while (bits < bound * 4) /* about 1 bit in 8 set, or fewer */
                bits <<= 1;
            edges = PyMem_Calloc(bits / 64, sizeof(uint64_t));
            if (edges == NULL) {
                PyErr_NoMemory();
                return NULL;
            }
        }
    }
    *mask = bits - 1;
    return edges;
}

PyDoc_STRVAR(attach_doc,
"attach(variants, depths, /) -> None\n"
"attach(variants, depths, stems, lengths, /) -> None\n\n"
"Settle unknown tokens in the scan itself: one sharing no deletion\n"
"variant with a keyword of the VariantIndex ``variants`` (at the depths\n"
"``depths[len(token)]`` allows, bits as for candidates(); 0 past its end) is\n"
"recorded as hitting nothing instead of being handed back. ``variants`` must\n"
"index every keyword (caps 0 included), so that exact matches are found too.\n"
"With ``stems`` (a VariantIndex of prefixes, caps 0) and ``lengths`` (their\n"
"distinct lengths, ascending, each 1..255), a token starting with one of them\n"
"is handed back too.");

static PyObject *
TokenCodes_attach_locked(TokenCodes *self, PyObject *const *args, Py_ssize_t nargs)
{
    /* a VariantIndex of any module object of this extension (a re-import
     * makes new types; the hash key is the process's, so they agree) */
    PyObject *module = nargs == 2 || nargs == 4
                           ? PyType_GetModuleByDef(Py_TYPE(args[0]), &speedups_module)
                           : NULL;
    if (module == NULL)
        PyErr_Clear();
    PyTypeObject *vtype = module == NULL ? NULL : speedups_state(module)->VariantIndexType;
    if (module == NULL || Py_TYPE(args[0]) != vtype || !PyBytes_Check(args[1]) ||
        (nargs == 4 && (Py_TYPE(args[2]) != vtype || !PyBytes_Check(args[3])))) {
        PyErr_SetString(PyExc_TypeError,
                        "attach() takes a VariantIndex and bytes (and another VariantIndex "
                        "and bytes)");
        return NULL;
    }
    if (nargs == 4) {
        const Py_ssize_t count = PyBytes_GET_SIZE(args[3]);
        const unsigned char *lengths = (const unsigned char *)PyBytes_AS_STRING(args[3]);
        for (Py_ssize_t k = 0; k < count; k++) {
            if (lengths[k] == 0 || (k > 0 && lengths[k] <= lengths[k - 1])) {
                PyErr_SetString(PyExc_ValueError,
                                "attach() lengths must be ascending, each 1..255");
                return NULL;
            }
        }
    }
    unsigned char depths[sizeof(self->depths)] = {0};
    Py_ssize_t n = PyBytes_GET_SIZE(args[1]);
    if (n > (Py_ssize_t)sizeof(depths))
        n = (Py_ssize_t)sizeof(depths);
    memcpy(depths, PyBytes_AS_STRING(args[1]), (size_t)n);
    size_t edge_mask;
    uint64_t *edges = edge_filter((VariantIndex *)args[0], depths, &edge_mask);
    if (edges == NULL)
        return NULL;
    PyMem_Free(self->edges);
    self->edges = edges;
    self->edge_mask = edge_mask;
    memcpy(self->depths, depths, sizeof(depths));
    if (nargs == 4) {
        const Py_ssize_t count = PyBytes_GET_SIZE(args[3]);
        memcpy(self->stem_lengths, PyBytes_AS_STRING(args[3]), (size_t)count);
        self->stem_count = (int)count;
        Py_INCREF(args[2]);
        Py_XSETREF(self->stems, (VariantIndex *)args[2]);
    }
    else {
        self->stem_count = 0;
        Py_CLEAR(self->stems);
    }
    Py_INCREF(args[0]);
    Py_XSETREF(self->variants, (VariantIndex *)args[0]);
    Py_RETURN_NONE;
}

static PyObject *
TokenCodes_attach(TokenCodes *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *result;
    Py_BEGIN_CRITICAL_SECTION(self);
    result = TokenCodes_attach_locked(self, args, nargs);
    Py_END_CRITICAL_SECTION();
    return result;
}

PyDoc_STRVAR(attach_resolver_doc,
"attach_resolver(exact, typo, word_exact, word_typo, keep_chars, match_type, labels,\n"
"                keywords, free, /) -> None\n--\n\n"
"Resolve in fold() itself the new tokens that the attached variants find near a\n"
"keyword or word and that start no stem, instead of handing them back: ``exact``\n"
"and ``typo`` map each keyword to its ``(rank, pos, rule)`` places, for a token that\n"
"is it, or a typo of it (copied here); ``word_exact`` and ``word_typo`` are\n"
"frozensets of the looked-up words (all, and those taking typos), or both None;\n"
"tokens longer than ``keep_chars`` are still handed back, and so are those holding\n"
"a capital sigma (whose lowercase Python decides). An entry is ``(rank, fuzzy, pos,\n"
"rule, match)``, ``match`` the shared ``match_type(rule, labels[rule],\n"
"keywords[rule][pos], fuzzy, None, ())`` when ``free[rule]`` (bytes, one per rule) is\n"
"1, else None. What a resolved token hits is kept as keep() keeps it. Call attach()\n"
"first: the tokens' typos are those of its variants.");

/* A copy of `table` (a dict of str to tuples of (rank, pos, rule) ints), each rule below
 * `rules` and each pos below its rule's number of keywords; NULL with TypeError set. */
static PyObject *
resolver_table(PyObject *table, PyObject *keywords)
{
    if (!PyDict_CheckExact(table))
        return NULL;
    Py_ssize_t at = 0;
    PyObject *keyword, *places;
    while (PyDict_Next(table, &at, &keyword, &places)) {
        if (!PyUnicode_CheckExact(keyword) || !PyTuple_CheckExact(places))
            return NULL;
        for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(places); k++) {
            PyObject *place = PyTuple_GET_ITEM(places, k);
            if (!PyTuple_CheckExact(place) || PyTuple_GET_SIZE(place) != 3)
                return NULL;
            Py_ssize_t value[3];
            for (int f = 0; f < 3; f++) {
                PyObject *item = PyTuple_GET_ITEM(place, f);
                value[f] = PyLong_CheckExact(item) ? PyLong_AsSsize_t(item) : -1;
                if (value[f] < 0) {
                    PyErr_Clear(); /* (an overflow: reported as the shape below) */
                    return NULL;
                }
            }
            if (value[2] >= PyTuple_GET_SIZE(keywords) ||
                value[1] >= PyTuple_GET_SIZE(PyTuple_GET_ITEM(keywords, value[2])))
                return NULL;
        }
    }
    return PyDict_Copy(table);
}

static PyObject *
TokenCodes_attach_resolver_locked(TokenCodes *self, PyObject *const *args, Py_ssize_t nargs)
{
    static const char shape[] =
        "attach_resolver() takes two dicts of (rank, pos, rule) places, two frozensets (or "
        "None), an int, a tuple subclass, a tuple of labels, a tuple of keyword tuples and "
        "bytes, one per rule";
    if (nargs != 9 || !PyDict_CheckExact(args[0]) || !PyDict_CheckExact(args[1]) ||
        !((PyFrozenSet_CheckExact(args[2]) && PyFrozenSet_CheckExact(args[3])) ||
          (args[2] == Py_None && args[3] == Py_None)) ||
        !PyLong_Check(args[4]) || !PyType_Check(args[5]) ||
        !PyType_IsSubtype((PyTypeObject *)args[5], &PyTuple_Type) ||
        !PyTuple_CheckExact(args[6]) || !PyTuple_CheckExact(args[7]) || !PyBytes_Check(args[8]) ||
        PyTuple_GET_SIZE(args[6]) != PyTuple_GET_SIZE(args[7]) ||
        PyBytes_GET_SIZE(args[8]) != PyTuple_GET_SIZE(args[7])) {
        PyErr_SetString(PyExc_TypeError, shape);
        return NULL;
    }
    const Py_ssize_t rules = PyTuple_GET_SIZE(args[7]);
    Py_ssize_t slots = 0;
    for (Py_ssize_t i = 0; i < rules; i++) {
        PyObject *words = PyTuple_GET_ITEM(args[7], i);
        if (!PyTuple_CheckExact(words) || !all_str(words) ||
            !PyUnicode_Check(PyTuple_GET_ITEM(args[6], i))) {
            PyErr_SetString(PyExc_TypeError, shape);
            return NULL;
        }
        slots += 2 * PyTuple_GET_SIZE(words);
    }
    if (self->variants == NULL) {
        PyErr_SetString(PyExc_ValueError, "attach_resolver(): attach() the variants first");
        return NULL;
    }
    const Py_ssize_t keep = PyLong_AsSsize_t(args[4]);
    if (keep == -1 && PyErr_Occurred())
        return NULL;
    PyObject *exact = resolver_table(args[0], args[7]);
    PyObject *typo = exact == NULL ? NULL : resolver_table(args[1], args[7]);
    if (typo == NULL) {
        Py_XDECREF(exact);
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, shape);
        return NULL;
    }
    unsigned char *free_rules = PyMem_Malloc((size_t)rules + 1);
    Py_ssize_t *base = PyMem_Malloc(((size_t)rules + 1) * sizeof(Py_ssize_t));
    PyObject **matches = PyMem_Calloc((size_t)slots + 1, sizeof(PyObject *));
    if (free_rules == NULL || base == NULL || matches == NULL) {
        PyMem_Free(free_rules);
        PyMem_Free(base);
        PyMem_Free(matches);
        Py_DECREF(exact);
        Py_DECREF(typo);
        PyErr_NoMemory();
        return NULL;
    }
    const unsigned char *given = (const unsigned char *)PyBytes_AS_STRING(args[8]);
    Py_ssize_t at = 0;
    for (Py_ssize_t i = 0; i < rules; i++) {
        free_rules[i] = given[i] != 0;
        base[i] = at;
        at += PyTuple_GET_SIZE(PyTuple_GET_ITEM(args[7], i));
    }
    resolver_free_matches(self);
    self->res_free = free_rules;
    self->res_base = base;
    self->res_matches = matches;
    self->res_rules = rules;
    self->res_slots = slots;
    Py_XSETREF(self->res_exact, exact);
    Py_XSETREF(self->res_typo, typo);
    Py_XSETREF(self->res_word_exact, Py_NewRef(args[2]));
    Py_XSETREF(self->res_word_typo, Py_NewRef(args[3]));
    Py_XSETREF(self->res_match_type, (PyTypeObject *)Py_NewRef(args[5]));
    Py_XSETREF(self->res_labels, Py_NewRef(args[6]));
    Py_XSETREF(self->res_keywords, Py_NewRef(args[7]));
    self->res_keep = keep;
    Py_RETURN_NONE;
}

static PyObject *
TokenCodes_attach_resolver(TokenCodes *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *result;
    Py_BEGIN_CRITICAL_SECTION(self);
    result = TokenCodes_attach_resolver_locked(self, args, nargs);
    Py_END_CRITICAL_SECTION();
    return result;
}

static PyObject *
TokenCodes_get_resolved_locked(TokenCodes *self, void *closure)
{
    (void)closure;
    return PyLong_FromSsize_t(self->resolved);
}

static PyObject *
TokenCodes_get_resolved(TokenCodes *self, void *Py_UNUSED(closure))
{
    PyObject *result;
    Py_BEGIN_CRITICAL_SECTION(self);
    result = TokenCodes_get_resolved_locked(self, NULL);
    Py_END_CRITICAL_SECTION();
    return result;
}

static PyObject *
TokenCodes_get_settled_locked(TokenCodes *self, void *closure)
{
    (void)closure;
    return PyLong_FromSsize_t(self->settled);
}

static PyObject *
TokenCodes_get_settled(TokenCodes *self, void *Py_UNUSED(closure))
{
    PyObject *result;
    Py_BEGIN_CRITICAL_SECTION(self);
    result = TokenCodes_get_settled_locked(self, NULL);
    Py_END_CRITICAL_SECTION();
    return result;
}

static PyObject *
TokenCodes_clear_locked(TokenCodes *self, PyObject *ignored)
{
    (void)ignored;
    clear_table(self);
    Py_RETURN_NONE;
}

static PyObject *
TokenCodes_clear(TokenCodes *self, PyObject *Py_UNUSED(ignored))
{
    PyObject *result;
    Py_BEGIN_CRITICAL_SECTION(self);
    result = TokenCodes_clear_locked(self, NULL);
    Py_END_CRITICAL_SECTION();
    return result;
}

static Py_ssize_t
TokenCodes_len_locked(TokenCodes *self)
{
    return (Py_ssize_t)self->used;
}

static Py_ssize_t
TokenCodes_len(TokenCodes *self)
{
    Py_ssize_t result;
    Py_BEGIN_CRITICAL_SECTION(self);
    result = TokenCodes_len_locked(self);
    Py_END_CRITICAL_SECTION();
    return result;
}

static PyObject *
TokenCodes_get_limit(TokenCodes *self, void *Py_UNUSED(closure))
{
    return PyLong_FromSize_t(self->limit);
}

static PyObject *
TokenCodes_get_evictions_locked(TokenCodes *self, void *closure)
{
    (void)closure;
    return PyLong_FromSize_t(self->evictions);
}

static PyObject *
TokenCodes_get_evictions(TokenCodes *self, void *Py_UNUSED(closure))
{
    PyObject *result;
    Py_BEGIN_CRITICAL_SECTION(self);
    result = TokenCodes_get_evictions_locked(self, NULL);
    Py_END_CRITICAL_SECTION();
    return result;
}

static PyMethodDef TokenCodes_methods[] = {
    {"scan", (PyCFunction)(void (*)(void))TokenCodes_scan, METH_FASTCALL, scan_doc},
    {"hits", (PyCFunction)TokenCodes_hits, METH_O, hits_doc},
    {"fold", (PyCFunction)(void (*)(void))TokenCodes_fold, METH_FASTCALL, fold_doc},
    {"keep", (PyCFunction)(void (*)(void))TokenCodes_keep, METH_FASTCALL, keep_doc},
    {"put", (PyCFunction)(void (*)(void))TokenCodes_put, METH_FASTCALL, put_doc},
    {"remember", (PyCFunction)(void (*)(void))TokenCodes_remember, METH_FASTCALL, remember_doc},
    {"get", (PyCFunction)TokenCodes_get, METH_O, get_doc},
    {"attach", (PyCFunction)(void (*)(void))TokenCodes_attach, METH_FASTCALL, attach_doc},
    {"attach_resolver", (PyCFunction)(void (*)(void))TokenCodes_attach_resolver, METH_FASTCALL,
     attach_resolver_doc},
    {"lower", (PyCFunction)TokenCodes_lower, METH_O, lower_doc},
    {"clear", (PyCFunction)TokenCodes_clear, METH_NOARGS, "clear() -> None\n--\n\nForget every token."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef TokenCodes_getset[] = {
    {"limit", (getter)TokenCodes_get_limit, NULL, "Most tokens held.", NULL},
    {"evictions", (getter)TokenCodes_get_evictions, NULL, "Tokens evicted so far.", NULL},
    {"settled", (getter)TokenCodes_get_settled, NULL,
     "Unknown tokens settled in C (no keyword near them).", NULL},
    {"resolved", (getter)TokenCodes_get_resolved, NULL,
     "New tokens resolved in C (attach_resolver()).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyDoc_STRVAR(TokenCodes_doc,
"TokenCodes(limit, *, max_len=0, alphabet=None, max_foreign=-1, collide=False)\n--\n\n"
"A bounded table from token to the matcher's outcome code. Tokens longer than\n"
"``max_len`` characters (0: no bound), or with more than ``max_foreign`` ASCII\n"
"letters and digits outside ``alphabet``, count as no hit and are never\n"
"stored. ``collide`` (tests only) makes every key hash alike.");

static PyType_Slot TokenCodes_slots[] = {
    {Py_tp_dealloc, TokenCodes_dealloc},
    {Py_sq_length, TokenCodes_len},
    {Py_tp_doc, (void *)TokenCodes_doc},
    {Py_tp_methods, TokenCodes_methods},
    {Py_tp_getset, TokenCodes_getset},
    {Py_tp_new, TokenCodes_new},
    {0, NULL},
};

static PyType_Spec TokenCodes_spec = {
    .name = SMISTA_SPEEDUPS_NAME ".TokenCodes",
    .basicsize = sizeof(TokenCodes),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = TokenCodes_slots,
};

/* -- VariantIndex ------------------------------------------------------------------ */

static void
variant_add(VariantIndex *self, uint64_t h, uint32_t id)
{
    const uint32_t tag = variant_tag(h);
    size_t i = (size_t)tag & self->mask;
    while (self->slots[i].hash) {
        if (self->slots[i].hash == tag && self->slots[i].id == id)
            return; /* this keyword already has this variant */
        i = (i + 1) & self->mask;
    }
    self->slots[i].hash = tag;
    self->slots[i].id = id;
    self->used++;
    bloom_add(self, h);
}

static Py_UCS4 *
code_points(PyObject *s, Py_ssize_t *n, Py_UCS4 *small, Py_ssize_t small_n)
{
    *n = PyUnicode_GET_LENGTH(s);
    Py_UCS4 *cps = small;
    if (*n > small_n) {
        cps = PyMem_Malloc((size_t)*n * sizeof(Py_UCS4));
        if (cps == NULL) {
            PyErr_NoMemory();
            return NULL;
        }
    }
    const int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    for (Py_ssize_t m = 0; m < *n; m++)
        cps[m] = PyUnicode_READ(kind, data, m);
    return cps;
}

#define SMALL_CPS 64

static PyObject *
VariantIndex_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"keywords", "caps", NULL};
    PyObject *keywords_arg, *caps_arg;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO", kwlist, &keywords_arg, &caps_arg))
        return NULL;
    /* tuple copies: no other thread can change them while the index is built */
    PyObject *keywords = PySequence_Tuple(keywords_arg);
    if (keywords == NULL)
        return NULL;
    PyObject *caps = PySequence_Tuple(caps_arg);
    if (caps == NULL) {
        Py_DECREF(keywords);
        return NULL;
    }
    VariantIndex *self = NULL;
    const Py_ssize_t count = PyTuple_GET_SIZE(keywords);
    if (PyTuple_GET_SIZE(caps) != count) {
        PyErr_SetString(PyExc_ValueError, "keywords and caps differ in length");
        goto fail;
    }
    /* an upper bound of the number of variants, for the table size */
    size_t total = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *k = PyTuple_GET_ITEM(keywords, i);
        long cap = PyLong_AsLong(PyTuple_GET_ITEM(caps, i));
        if (cap == -1 && PyErr_Occurred())
            goto fail;
        if (!PyUnicode_Check(k) || cap < 0 || cap > 2) {
            PyErr_SetString(PyExc_ValueError, "keywords must be str, caps 0, 1 or 2");
            goto fail;
        }
        size_t n = (size_t)PyUnicode_GET_LENGTH(k);
        total += 1 + (cap >= 1 ? n : 0) + (cap >= 2 ? n * (n - (n > 0)) / 2 : 0);
    }
    size_t slots = 16;
    while (slots < total + total / 2)
        slots <<= 1;
    size_t bloom_bits = 64;
    while (bloom_bits < total * 16)
        bloom_bits <<= 1;
    self = (VariantIndex *)type->tp_alloc(type, 0);
    if (self == NULL)
        goto fail;
    self->slots = PyMem_Calloc(slots, sizeof(Variant));
    self->bloom = PyMem_Calloc(bloom_bits / 64, sizeof(uint64_t));
    if (self->slots == NULL || self->bloom == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    self->caps = PyMem_Malloc(count > 0 ? (size_t)count : 1);
    if (self->caps == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    self->mask = slots - 1;
    self->bloom_mask = bloom_bits - 1;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *k = PyTuple_GET_ITEM(keywords, i);
        long cap = PyLong_AsLong(PyTuple_GET_ITEM(caps, i));
        self->caps[i] = (uint8_t)cap;
        Py_UCS4 small_cps[SMALL_CPS];
        uint64_t small_p[SMALL_CPS + 1];
        Py_ssize_t n;
        Py_UCS4 *cps = code_points(k, &n, small_cps, SMALL_CPS);
        if (cps == NULL)
            goto fail;
        uint64_t *P = small_p;
        if (n > SMALL_CPS) {
            P = PyMem_Malloc(((size_t)n + 1) * sizeof(uint64_t));
            if (P == NULL) {
                if (cps != small_cps)
                    PyMem_Free(cps);
                PyErr_NoMemory();
                goto fail;
            }
        }
        PREFIX_OF(P, cps, n);
        variant_add(self, variant_hash(P[n], (size_t)n), (uint32_t)i);
        if (cap >= 1) {
            for (Py_ssize_t a = 0; a < n; a++) {
                variant_add(self, variant_hash(poly_without(P, n, a, -1), (size_t)n - 1),
                            (uint32_t)i);
                if (cap >= 2) {
                    for (Py_ssize_t b = a + 1; b < n; b++)
                        variant_add(self,
                                    variant_hash(poly_without(P, n, a, b), (size_t)n - 2),
                                    (uint32_t)i);
                }
            }
        }
        if (cps != small_cps)
            PyMem_Free(cps);
        if (P != small_p)
            PyMem_Free(P);
    }
    self->keywords = keywords; /* kept: typos() verifies against them */
    Py_DECREF(caps);
    return (PyObject *)self;
fail:
    Py_DECREF(keywords);
    Py_DECREF(caps);
    Py_XDECREF(self);
    return NULL;
}

static void
VariantIndex_dealloc(VariantIndex *self)
{
    PyMem_Free(self->slots);
    PyMem_Free(self->bloom);
    PyMem_Free(self->caps);
    Py_XDECREF(self->keywords);
    PyTypeObject *type = Py_TYPE(self);
    type->tp_free((PyObject *)self);
    Py_DECREF(type); /* a heap type: each instance holds a reference to it */
}

static int
collect(const VariantIndex *self, uint64_t h, PyObject *out)
{
    if (!bloom_has(self, h))
        return 0;
    const uint32_t tag = variant_tag(h);
    size_t i = (size_t)tag & self->mask;
    while (self->slots[i].hash) {
        if (self->slots[i].hash == tag) {
            PyObject *id = PyLong_FromUnsignedLong(self->slots[i].id);
            if (id == NULL || PyList_Append(out, id) < 0) {
                Py_XDECREF(id);
                return -1;
            }
            Py_DECREF(id);
        }
        i = (i + 1) & self->mask;
    }
    return 0;
}

PyDoc_STRVAR(candidates_doc,
"candidates(token, depths, /) -> list[int]\n--\n\n"
"Positions of the keywords sharing a deletion variant with ``token``: the\n"
"token itself (``depths & 1``), with one character deleted (``& 2``), with two\n"
"deleted (``& 4``). Repeats possible; a hash collision may add a keyword\n"
"(candidates are to be verified).");

static PyObject *
VariantIndex_candidates(VariantIndex *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyUnicode_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "candidates() takes a str and an int");
        return NULL;
    }
    long depths = PyLong_AsLong(args[1]);
    if (depths == -1 && PyErr_Occurred())
        return NULL;
    Py_UCS4 small_cps[SMALL_CPS];
    uint64_t small_p[SMALL_CPS + 1];
    Py_ssize_t n;
    Py_UCS4 *cps = code_points(args[0], &n, small_cps, SMALL_CPS);
    if (cps == NULL)
        return NULL;
    uint64_t *P = small_p;
    PyObject *out = NULL;
    if (n > SMALL_CPS) {
        P = PyMem_Malloc(((size_t)n + 1) * sizeof(uint64_t));
        if (P == NULL) {
            PyErr_NoMemory();
            goto done;
        }
    }
    PREFIX_OF(P, cps, n);
    out = PyList_New(0);
    if (out == NULL)
        goto done;
    if ((depths & 1) && collect(self, variant_hash(P[n], (size_t)n), out) < 0)
        goto fail;
    if (depths & 2) {
        for (Py_ssize_t a = 0; a < n; a++) {
            if (collect(self, variant_hash(poly_without(P, n, a, -1), (size_t)n - 1), out) < 0)
                goto fail;
        }
    }
    if (depths & 4) {
        for (Py_ssize_t a = 0; a < n; a++) {
            for (Py_ssize_t b = a + 1; b < n; b++) {
                if (collect(self, variant_hash(poly_without(P, n, a, b), (size_t)n - 2), out) <
                    0)
                    goto fail;
            }
        }
    }
    goto done;
fail:
    Py_CLEAR(out);
done:
    if (cps != small_cps)
        PyMem_Free(cps);
    if (P != small_p && P != NULL)
        PyMem_Free(P);
    return out;
}

/* Whether the code points `a[0:la]` occur in `b[0:lb]`. */
static int
contains_cps(const Py_UCS4 *b, Py_ssize_t lb, const Py_UCS4 *a, Py_ssize_t la)
{
    for (Py_ssize_t s = 0; s + la <= lb; s++) {
        Py_ssize_t m = 0;
        while (m < la && b[s + m] == a[m])
            m++;
        if (m == la)
            return 1;
    }
    return 0;
}

#define OSA_ROW 258 /* rows this long live on the stack */

/* The OSA distance of `a` and `b` (unit costs, adjacent transpositions) if at
 * most `cap`, else cap + 1: smista.core.osa.osa_within, row by row, stopping
 * once a whole row is past the cap. -1 when out of memory. */
static int
osa_cps(const Py_UCS4 *a, Py_ssize_t la, const Py_UCS4 *b, Py_ssize_t lb, int cap)
{
    if ((la > lb ? la - lb : lb - la) > cap)
        return cap + 1;
    Py_ssize_t small[3 * OSA_ROW];
    Py_ssize_t *buf = small;
    if (lb + 1 > OSA_ROW) {
        buf = PyMem_Malloc(3 * ((size_t)lb + 1) * sizeof(Py_ssize_t));
        if (buf == NULL) {
            PyErr_NoMemory();
            return -1;
        }
    }
    Py_ssize_t *before = buf, *prev = buf + (lb + 1), *cur = buf + 2 * (lb + 1);
    for (Py_ssize_t j = 0; j <= lb; j++)
        prev[j] = j;
    int out = -2;
    for (Py_ssize_t i = 1; i <= la && out == -2; i++) {
        const Py_UCS4 ai = a[i - 1];
        cur[0] = i;
        Py_ssize_t low = i;
        for (Py_ssize_t j = 1; j <= lb; j++) {
            const Py_UCS4 bj = b[j - 1];
            Py_ssize_t v = prev[j - 1] + (ai != bj);
            if (prev[j] + 1 < v)
                v = prev[j] + 1;
            if (cur[j - 1] + 1 < v)
                v = cur[j - 1] + 1;
            if (i > 1 && j > 1 && ai == b[j - 2] && a[i - 2] == bj && before[j - 2] + 1 < v)
                v = before[j - 2] + 1;
            cur[j] = v;
            if (v < low)
                low = v;
        }
        if (low > cap)
            out = cap + 1;
        Py_ssize_t *t = before;
        before = prev;
        prev = cur;
        cur = t;
    }
    if (out == -2)
        out = prev[lb] <= cap ? (int)prev[lb] : cap + 1;
    if (buf != small)
        PyMem_Free(buf);
    return out;
}

/* Whether the token `cps[0:n]` is a typo of keyword `at` (1), or, when `exact`, the
 * keyword itself (1); 0 if neither; -1 on an error. `buf`: SMALL_CPS code points of
 * room for the keyword's. */
static int
keyword_near(const VariantIndex *self, Py_ssize_t at, const Py_UCS4 *cps, Py_ssize_t n,
             Py_UCS4 *buf, int exact)
{
    const int cap = self->caps[at];
    PyObject *keyword = PyTuple_GET_ITEM(self->keywords, at);
    const Py_ssize_t kn = PyUnicode_GET_LENGTH(keyword);
    if ((cap == 0 && !(exact && kn == n)) || (kn > n ? kn - n : n - kn) > cap)
        return 0;
    Py_ssize_t kl;
    Py_UCS4 *kw = code_points(keyword, &kl, buf, SMALL_CPS);
    if (kw == NULL)
        return -1;
    int distance = 0;
    if (kl == n ? memcmp(kw, cps, (size_t)n * sizeof(Py_UCS4)) != 0
                : !(kl < n ? contains_cps(cps, n, kw, kl) : contains_cps(kw, kl, cps, n)))
        distance = cap == 0 ? 1 : osa_cps(kw, kl, cps, n, cap);
    else if (kl == n && exact)
        distance = -2; /* the keyword itself */
    if (kw != buf)
        PyMem_Free(kw);
    if (distance == -1)
        return -1;
    return distance == -2 || (distance >= 1 && distance <= cap);
}

/* Append keyword `at` to `out` if the token `cps[0:n]` is a typo of it; -1 on
 * an error. `buf`: SMALL_CPS code points of room for the keyword's. */
static int
typo_verified(const VariantIndex *self, Py_ssize_t at, const Py_UCS4 *cps, Py_ssize_t n,
              Py_UCS4 *buf, PyObject *out)
{
    const int near = keyword_near(self, at, cps, n, buf, 0);
    if (near <= 0)
        return near;
    return PyList_Append(out, PyTuple_GET_ITEM(self->keywords, at));
}

/* The distinct keyword positions of cap 1 or 2 with the variant of hash `h`,
 * added to ids[0:*count] (at most `room`; -1 past it). */
static int
collect_typo_ids(const VariantIndex *self, uint64_t h, uint32_t *ids, Py_ssize_t *count,
                 Py_ssize_t room)
{
    if (!bloom_has(self, h))
        return 0;
    const uint32_t tag = variant_tag(h);
    size_t i = (size_t)tag & self->mask;
    while (self->slots[i].hash) {
        if (self->slots[i].hash == tag && self->caps[self->slots[i].id] != 0) {
            const uint32_t id = self->slots[i].id;
            Py_ssize_t e = 0;
            while (e < *count && ids[e] != id)
                e++;
            if (e == *count) {
                if (*count == room)
                    return -1;
                ids[(*count)++] = id;
            }
        }
        i = (i + 1) & self->mask;
    }
    return 0;
}

#define TYPO_IDS 256 /* distinct candidates typos() verifies; past it, candidates() does */

PyDoc_STRVAR(typos_doc,
"typos(token, depths, /) -> list[str]\n--\n\n"
"The keywords ``token`` (lowercased) is a typo of, each once:\n"
"the candidates() at ``depths`` whose cap is at least 1, verified with the\n"
"rules of smista.core.fuzzy: not the keyword, lengths within the cap, neither\n"
"containing the other, OSA distance 1..cap. In the order first found.");

static PyObject *
VariantIndex_typos(VariantIndex *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyUnicode_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "typos() takes a str and an int");
        return NULL;
    }
    long depths = PyLong_AsLong(args[1]);
    if (depths == -1 && PyErr_Occurred())
        return NULL;
    Py_UCS4 small_cps[SMALL_CPS], small_kw[SMALL_CPS];
    uint64_t small_p[SMALL_CPS + 1];
    uint32_t ids[TYPO_IDS];
    Py_ssize_t n, count = 0;
    Py_UCS4 *cps = code_points(args[0], &n, small_cps, SMALL_CPS);
    if (cps == NULL)
        return NULL;
    uint64_t *P = small_p;
    PyObject *out = NULL;
    if (n > SMALL_CPS) {
        P = PyMem_Malloc(((size_t)n + 1) * sizeof(uint64_t));
        if (P == NULL) {
            PyErr_NoMemory();
            goto done;
        }
    }
    PREFIX_OF(P, cps, n);
    int full = 0;
    if (depths & 1)
        full |= collect_typo_ids(self, variant_hash(P[n], (size_t)n), ids, &count, TYPO_IDS);
    if (depths & 2) {
        for (Py_ssize_t a = 0; a < n && !full; a++)
            full |= collect_typo_ids(self, variant_hash(poly_without(P, n, a, -1), (size_t)n - 1),
                                     ids, &count, TYPO_IDS);
    }
    if (depths & 4) {
        for (Py_ssize_t a = 0; a < n && !full; a++) {
            for (Py_ssize_t b = a + 1; b < n && !full; b++)
                full |= collect_typo_ids(self,
                                         variant_hash(poly_without(P, n, a, b), (size_t)n - 2),
                                         ids, &count, TYPO_IDS);
        }
    }
    if (full) { /* more distinct candidates than fit here: take them all from candidates() */
        PyObject *found = VariantIndex_candidates(self, args, nargs);
        if (found == NULL)
            goto done;
        out = PyList_New(0);
        for (Py_ssize_t c = 0; out != NULL && c < PyList_GET_SIZE(found); c++) {
            const size_t at = PyLong_AsSize_t(PyList_GET_ITEM(found, c));
            int again = self->caps[at] == 0;
            for (Py_ssize_t e = 0; e < c && !again; e++)
                again = PyLong_AsSize_t(PyList_GET_ITEM(found, e)) == at;
            if (!again && typo_verified(self, (Py_ssize_t)at, cps, n, small_kw, out) < 0)
                Py_CLEAR(out);
        }
        Py_DECREF(found);
        goto done;
    }
    out = PyList_New(0);
    for (Py_ssize_t c = 0; out != NULL && c < count; c++) {
        if (typo_verified(self, (Py_ssize_t)ids[c], cps, n, small_kw, out) < 0)
            Py_CLEAR(out);
    }
done:
    if (cps != small_cps)
        PyMem_Free(cps);
    if (P != small_p && P != NULL)
        PyMem_Free(P);
    return out;
}

/* near_verified()'s check of the keywords with the variant of hash `h`, each once
 * (`ids[0:*count]`: those checked already). Called only once the filter passed `h`
 * (near_verified() tests it inline: most variants stop there). */
static int
near_variant(const VariantIndex *vi, uint64_t h, const Py_UCS4 *cps, Py_ssize_t n,
             uint32_t *ids, Py_ssize_t *count, Py_UCS4 *buf)
{
    const uint32_t tag = variant_tag(h);
    size_t i = (size_t)tag & vi->mask;
    while (vi->slots[i].hash) {
        if (vi->slots[i].hash == tag) {
            const uint32_t id = vi->slots[i].id;
            Py_ssize_t e = 0;
            while (e < *count && ids[e] != id)
                e++;
            if (e == *count) {
                if (*count == TYPO_IDS)
                    return -1; /* (no error set) */
                ids[(*count)++] = id;
                const int near = keyword_near(vi, id, cps, n, buf, 1);
                if (near != 0)
                    return near;
            }
        }
        i = (i + 1) & vi->mask;
    }
    return 0;
}

/* Whether the token `cps[0:n]` (prefix sums `P[0..n]`) is a keyword of `vi` or a typo
 * of one (the rules of typos(): cap at least 1, lengths within it, neither containing
 * the other, OSA distance 1..cap), looking at the keywords sharing one of its deletion
 * variants at `depths` (itself always): 1 or 0; -1 with an error set, or without one
 * when more than TYPO_IDS keywords share a variant with it (undecided).
 *
 * The variants are those of candidates(), in its order, with the same hashes, but
 * each costs an addition, a multiplication and the filter's word: poly_without()'s
 * sums regrouped per deleted position (mod 2^64 the regrouping is exact),
 *
 *   without i:     P[i] + (P[n] - P[i+1]) R^-1                = D[i] + P[n] R^-1
 *   without i < j: P[i] + (P[j] - P[i+1]) R^-1 + (P[n] - P[j+1]) R^-2
 *                                                  = D[i] + P[n] R^-2 + D[j] R^-1
 *
 * with D[m] = P[m] - P[m+1] R^-1, and the filter read inline (near_variant() is
 * called for the few variants it passes). */
static int
near_verified(const VariantIndex *vi, const uint64_t *edges, size_t edge_mask,
              const Py_UCS4 *cps, const uint64_t *P, Py_ssize_t n, int depths)
{
    uint32_t ids[TYPO_IDS];
    Py_UCS4 buf[SMALL_CPS];
    uint64_t D[MAX_VARIANT_TOKEN], E[MAX_VARIANT_TOKEN]; /* D[m], and D[m] R^-1 */
    Py_ssize_t count = 0;
    const uint64_t *bloom = vi->bloom;
    const size_t words = vi->bloom_mask >> 6;
    const uint64_t seed0 = SEED0, rinv = POLY_RINV;
#define NEAR_PASSES(h)                                                                   \
    bloom_word_has(bloom[(size_t)((h) >> 40) & words], (h))
    uint64_t h = variant_hash(P[n], (size_t)n);
    if (NEAR_PASSES(h)) {
        const int near = near_variant(vi, h, cps, n, ids, &count, buf);
        if (near != 0)
            return near;
    }
    if (!(depths & 6))
        return 0;
    if (n > MAX_VARIANT_TOKEN) /* (never: near_nothing() keeps tokens within D's room) */
        return -1;
    for (Py_ssize_t m = 0; m < n; m++) {
        D[m] = P[m] - P[m + 1] * rinv;
        E[m] = D[m] * rinv;
    }
    if (depths & 2) {
        const uint64_t top = P[n] * rinv, len = (uint64_t)(n - 1) ^ SEED1;
        for (Py_ssize_t a = 0; a < n; a++) {
            h = mum((D[a] + top) ^ seed0, len);
            if (NEAR_PASSES(h)) {
                const int near = near_variant(vi, h, cps, n, ids, &count, buf);
                if (near != 0)
                    return near;
            }
        }
    }
    if (depths & 4) {
        /* The edge filter (attach() built it for this length, as depths & 4): the
         * token less a < b keeps its first p characters when a >= p, and its last p
         * when b < n - p. So when no filtered variant (all n - 2 long) starts with the
         * token's first p characters, only a < p can give one; when none ends with its
         * last p, only b >= n - p. Every keyword this loop may verify near has its
         * variant filtered: a match is n - 2 long, so it is a cap-1 keyword less one
         * character or a cap-2 one less up to two (a cap-0 keyword's only variant is
         * itself, which verifies only as the token, n long; a cap-1 keyword n - 2 long
         * is two insertions away). The loop so skips only the (a, b) whose variant no
         * such keyword has: a candidate there could come only from a hash collision.
         * (Skipping such candidates can turn the -1 of more than TYPO_IDS of them, which
         * hands the token to Python, into the 0 Python would answer.) This relies on
         * `depths` letting through every depth where a true shared variant can lie, as
         * the engine's depth table does: with hand-made depths passed to attach(), a
         * keyword reachable only through a tag collision on a skipped variant is no
         * longer found, where VariantIndex.typos() would still return it. */
        Py_ssize_t rows = n, from = 0; /* a < rows, b >= from */
        for (Py_ssize_t p = 1; p <= EDGE && p <= n - 2; p++) {
            if (!edge_has(edges, edge_mask, edge_hash(P[p], (size_t)(n - 2), 0, (int)p))) {
                rows = p;
                break;
            }
        }
        uint64_t last = 0, pw = 1; /* the last s characters, reversed */
        for (Py_ssize_t p = 1; p <= EDGE && p <= n - 2; p++) {
            last += ((uint64_t)cps[n - p] + 1) * pw;
            pw *= POLY_R;
            if (!edge_has(edges, edge_mask, edge_hash(last, (size_t)(n - 2), 1, (int)p))) {
                from = n - p;
                break;
            }
        }
        const uint64_t top = P[n] * rinv * rinv, len = (uint64_t)(n - 2) ^ SEED1;
        for (Py_ssize_t a = 0; a < rows; a++) {
            const uint64_t base = D[a] + top;
            for (Py_ssize_t b = a + 1 > from ? a + 1 : from; b < n; b++) {
                h = mum((base + E[b]) ^ seed0, len);
                if (NEAR_PASSES(h)) {
                    const int near = near_variant(vi, h, cps, n, ids, &count, buf);
                    if (near != 0)
                        return near;
                }
            }
        }
    }
#undef NEAR_PASSES
    return 0;
}

static Py_ssize_t
VariantIndex_len(VariantIndex *self)
{
    return (Py_ssize_t)self->used;
}

static PyObject *
VariantIndex_sizeof(VariantIndex *self, PyObject *Py_UNUSED(ignored))
{
    return PyLong_FromSize_t(sizeof(VariantIndex) + (self->mask + 1) * sizeof(Variant) +
                             (self->bloom_mask + 1) / 8);
}

static PyMethodDef VariantIndex_methods[] = {
    {"candidates", (PyCFunction)(void (*)(void))VariantIndex_candidates, METH_FASTCALL,
     candidates_doc},
    {"typos", (PyCFunction)(void (*)(void))VariantIndex_typos, METH_FASTCALL, typos_doc},
    {"__sizeof__", (PyCFunction)VariantIndex_sizeof, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

PyDoc_STRVAR(VariantIndex_doc,
"VariantIndex(keywords, caps)\n--\n\n"
"The deletion variants of each of ``keywords`` (lowercased str) up to its\n"
"typo cap (0, 1 or 2), 8 bytes each; ``len()`` counts them.");

static PyType_Slot VariantIndex_slots[] = {
    {Py_tp_dealloc, VariantIndex_dealloc},
    {Py_sq_length, VariantIndex_len},
    {Py_tp_doc, (void *)VariantIndex_doc},
    {Py_tp_methods, VariantIndex_methods},
    {Py_tp_new, VariantIndex_new},
    {0, NULL},
};

static PyType_Spec VariantIndex_spec = {
    .name = SMISTA_SPEEDUPS_NAME ".VariantIndex",
    .basicsize = sizeof(VariantIndex),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = VariantIndex_slots,
};

/* -- MarkerTable: the question and leading-word readings ---------------------------- */

/* smista.core.conditions.markers reads a prompt sentence by sentence: is its
 * last sentence a question, is some sentence a polite request, where is its
 * first content word. MarkerTable does those readings in one pass over the
 * characters, against a table compiled from one Markers object (user data,
 * never hard-coded here): openers indexed by their first token, the prefix
 * words of scripts without spaces, and the endings. Tokens are split and
 * lowercased as tokenize() does (lower_token above) into one buffer, " t1 t2
 * ...", which is also the " "-joined form the endings are compared with.
 * Whether a token is in a script without spaces (Han, Kana) is asked of the
 * Python predicate the table was built with, and only for a character from
 * U+2E80 on (the tests check none before is). A text holding U+03A3 gives
 * None: Python decides. The Python functions are the reference semantics
 * (tests compare the two); the table is immutable once built. */

typedef struct {
    uint64_t hash;  /* of its first token */
    uint32_t first; /* its first token in the table's spans */
    uint32_t ntok;
    uint32_t chars; /* len(" ".join(opener)) */
    int32_t next;   /* the next opener in its bucket, or -1 */
} MOpener;

typedef struct {
    MOpener *ops;
    Py_ssize_t n;
    int32_t *buckets;
    size_t mask;
    uint32_t max_ntok;
} MOpenerSet;

typedef struct {
    uint32_t off, len; /* code points in the table's pool */
} MSpan;

typedef struct {
    PyObject_HEAD
    uint32_t *pool;
    size_t pool_len, pool_cap;
    MSpan *spans;
    size_t nspans, spans_cap;
    MOpenerSet fillers, skipping, requests, asking, request_prefixes, asking_prefixes;
    uint32_t *request_plens, *asking_plens; /* prefix lengths, longest first */
    Py_ssize_t n_request_plens, n_asking_plens;
    MSpan *question_endings, *request_endings;
    Py_ssize_t n_question_endings, n_request_endings;
    /* each ending's last code point, side by side (ending_at() compares these first:
     * the spans and the pool are read only for endings whose last one matches), and
     * the set of those last code points modulo 64 */
    uint32_t *question_last, *request_last;
    uint64_t question_lasts, request_lasts;
    Py_ssize_t longest_ending; /* code points */
    PyObject *no_space; /* callable(str) -> bool: Han, Hiragana, Katakana */
} MarkerTable;

static inline uint64_t
cps_hash(const uint32_t *p, Py_ssize_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (Py_ssize_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ULL;
    return h ^ (uint64_t)n;
}

/* Append the code points of `s` to the pool; its span in *span. */
static int
pool_add(MarkerTable *t, PyObject *s, MSpan *span)
{
    if (!PyUnicode_Check(s)) {
        PyErr_SetString(PyExc_TypeError, "MarkerTable: markers must be str");
        return -1;
    }
    const Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    if (n > 0x7FFFFFFF || t->pool_len + (size_t)n > 0x7FFFFFFF) {
        PyErr_SetString(PyExc_OverflowError, "MarkerTable: markers too long");
        return -1;
    }
    if (t->pool_len + (size_t)n > t->pool_cap) {
        size_t cap = t->pool_cap ? t->pool_cap : 1024;
        while (cap < t->pool_len + (size_t)n)
            cap *= 2;
        uint32_t *p = PyMem_Realloc(t->pool, cap * sizeof(uint32_t));
        if (p == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        t->pool = p;
        t->pool_cap = cap;
    }
    const int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    for (Py_ssize_t i = 0; i < n; i++)
        t->pool[t->pool_len + (size_t)i] = PyUnicode_READ(kind, data, i);
    span->off = (uint32_t)t->pool_len;
    span->len = (uint32_t)n;
    t->pool_len += (size_t)n;
    return 0;
}

static int
span_add(MarkerTable *t, PyObject *s)
{
    if (t->nspans == t->spans_cap) {
        size_t cap = t->spans_cap ? 2 * t->spans_cap : 256;
        MSpan *p = PyMem_Realloc(t->spans, cap * sizeof(MSpan));
        if (p == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        t->spans = p;
        t->spans_cap = cap;
    }
    if (pool_add(t, s, &t->spans[t->nspans]) < 0)
        return -1;
    t->nspans++;
    return 0;
}

/* An opener set from a sequence of tuples of str (an empty tuple is no opener);
 * with `single`, a sequence of str, each a one-token opener. */
static int
openers_build(MarkerTable *t, MOpenerSet *set, PyObject *seq, int single)
{
    PyObject *fast = PySequence_Fast(seq, "MarkerTable: expected a sequence of openers");
    if (fast == NULL)
        return -1;
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    set->ops = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(MOpener));
    size_t size = 1;
    while (size < (size_t)(2 * n))
        size *= 2;
    set->buckets = PyMem_Malloc(size * sizeof(int32_t));
    if (set->ops == NULL || set->buckets == NULL) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    set->mask = size - 1;
    for (size_t b = 0; b < size; b++)
        set->buckets[b] = -1;
    set->n = 0;
    set->max_ntok = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(fast, i);
        PyObject *tokens = single ? PyTuple_Pack(1, item) : (Py_INCREF(item), item);
        if (tokens == NULL || !PyTuple_Check(tokens)) {
            if (tokens != NULL)
                PyErr_SetString(PyExc_TypeError, "MarkerTable: an opener must be a tuple");
            Py_XDECREF(tokens);
            Py_DECREF(fast);
            return -1;
        }
        const Py_ssize_t k = PyTuple_GET_SIZE(tokens);
        if (k == 0) {
            Py_DECREF(tokens);
            continue;
        }
        MOpener *op = &set->ops[set->n];
        op->first = (uint32_t)t->nspans;
        op->ntok = (uint32_t)k;
        size_t chars = (size_t)(k - 1);
        for (Py_ssize_t j = 0; j < k; j++) {
            if (span_add(t, PyTuple_GET_ITEM(tokens, j)) < 0) {
                Py_DECREF(tokens);
                Py_DECREF(fast);
                return -1;
            }
            chars += t->spans[t->nspans - 1].len;
        }
        Py_DECREF(tokens);
        op->chars = (uint32_t)chars;
        const MSpan *f = &t->spans[op->first];
        op->hash = cps_hash(t->pool + f->off, f->len);
        const size_t b = (size_t)op->hash & set->mask;
        op->next = set->buckets[b];
        set->buckets[b] = (int32_t)set->n;
        if (op->ntok > set->max_ntok)
            set->max_ntok = op->ntok;
        set->n++;
    }
    Py_DECREF(fast);
    return 0;
}

/* The distinct lengths of the one-token openers of `set`, longest first. */
static int
prefix_lengths(MarkerTable *t, const MOpenerSet *set, uint32_t **out, Py_ssize_t *count)
{
    *out = PyMem_Malloc((size_t)(set->n ? set->n : 1) * sizeof(uint32_t));
    if (*out == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *count = 0;
    for (Py_ssize_t i = 0; i < set->n; i++) {
        const uint32_t len = t->spans[set->ops[i].first].len;
        Py_ssize_t j = 0;
        while (j < *count && (*out)[j] > len)
            j++;
        if (j < *count && (*out)[j] == len)
            continue;
        memmove(*out + j + 1, *out + j, (size_t)(*count - j) * sizeof(uint32_t));
        (*out)[j] = len;
        (*count)++;
    }
    return 0;
}

static int
endings_build(MarkerTable *t, PyObject *seq, MSpan **out, Py_ssize_t *count, uint32_t **last,
              uint64_t *lasts)
{
    PyObject *fast = PySequence_Fast(seq, "MarkerTable: expected a sequence of endings");
    if (fast == NULL)
        return -1;
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    *out = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(MSpan));
    *last = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(uint32_t));
    if (*out == NULL || *last == NULL) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    *lasts = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (pool_add(t, PySequence_Fast_GET_ITEM(fast, i), &(*out)[i]) < 0) {
            Py_DECREF(fast);
            return -1;
        }
        const MSpan *e = &(*out)[i];
        /* (an empty ending never matches: ending_at() wants a length past 0) */
        (*last)[i] = e->len ? t->pool[e->off + e->len - 1] : 0;
        if (e->len)
            *lasts |= (uint64_t)1 << ((*last)[i] & 63);
    }
    *count = n;
    Py_DECREF(fast);
    return 0;
}

static void
openers_free(MOpenerSet *set)
{
    PyMem_Free(set->ops);
    PyMem_Free(set->buckets);
}

/* The table holds one Python object, the no_space callable: visited and cleared for
 * the cycle collector (a user's callable may refer back to the table). */
static int
MarkerTable_traverse(MarkerTable *self, visitproc visit, void *arg)
{
    Py_VISIT(self->no_space);
    Py_VISIT(Py_TYPE(self));
    return 0;
}

static int
MarkerTable_clear(MarkerTable *self)
{
    Py_CLEAR(self->no_space);
    return 0;
}

static void
MarkerTable_dealloc(MarkerTable *self)
{
    PyObject_GC_UnTrack(self);
    PyMem_Free(self->pool);
    PyMem_Free(self->spans);
    openers_free(&self->fillers);
    openers_free(&self->skipping);
    openers_free(&self->requests);
    openers_free(&self->asking);
    openers_free(&self->request_prefixes);
    openers_free(&self->asking_prefixes);
    PyMem_Free(self->request_plens);
    PyMem_Free(self->asking_plens);
    PyMem_Free(self->question_endings);
    PyMem_Free(self->request_endings);
    PyMem_Free(self->question_last);
    PyMem_Free(self->request_last);
    Py_CLEAR(self->no_space);
    PyTypeObject *type = Py_TYPE(self);
    type->tp_free((PyObject *)self);
    Py_DECREF(type);
}

static PyObject *
MarkerTable_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"fillers", "skipping", "requests", "asking", "request_prefixes",
                             "asking_prefixes", "question_endings", "request_endings",
                             "no_space", NULL};
    PyObject *fillers, *skipping, *requests, *asking, *rp, *ap, *qe, *re, *no_space;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOOOOOOO:MarkerTable", kwlist, &fillers,
                                     &skipping, &requests, &asking, &rp, &ap, &qe, &re,
                                     &no_space))
        return NULL;
    if (!PyCallable_Check(no_space)) {
        PyErr_SetString(PyExc_TypeError, "MarkerTable: no_space must be callable");
        return NULL;
    }
    MarkerTable *t = (MarkerTable *)type->tp_alloc(type, 0);
    if (t == NULL)
        return NULL;
    /* tp_alloc zeroes the object: dealloc is safe at any failure below */
    Py_INCREF(no_space);
    t->no_space = no_space;
    if (openers_build(t, &t->fillers, fillers, 0) < 0 ||
        openers_build(t, &t->skipping, skipping, 0) < 0 ||
        openers_build(t, &t->requests, requests, 0) < 0 ||
        openers_build(t, &t->asking, asking, 0) < 0 ||
        openers_build(t, &t->request_prefixes, rp, 1) < 0 ||
        openers_build(t, &t->asking_prefixes, ap, 1) < 0 ||
        prefix_lengths(t, &t->request_prefixes, &t->request_plens, &t->n_request_plens) < 0 ||
        prefix_lengths(t, &t->asking_prefixes, &t->asking_plens, &t->n_asking_plens) < 0 ||
        endings_build(t, qe, &t->question_endings, &t->n_question_endings, &t->question_last,
                      &t->question_lasts) < 0 ||
        endings_build(t, re, &t->request_endings, &t->n_request_endings, &t->request_last,
                      &t->request_lasts) < 0) {
        Py_DECREF(t);
        return NULL;
    }
    for (Py_ssize_t e = 0; e < t->n_question_endings; e++) {
        if ((Py_ssize_t)t->question_endings[e].len > t->longest_ending)
            t->longest_ending = t->question_endings[e].len;
    }
    for (Py_ssize_t e = 0; e < t->n_request_endings; e++) {
        if ((Py_ssize_t)t->request_endings[e].len > t->longest_ending)
            t->longest_ending = t->request_endings[e].len;
    }
    return (PyObject *)t;
}

/* A text's tokens, read on demand: " t1 t2 ..." in buf, token i at off[i]
 * (after its space), len[i] code points, from the text's character src[i]. */
typedef struct {
    PyObject *text;
    Py_ssize_t pos, end; /* what is left to read */
    uint32_t *buf;
    Py_ssize_t blen, bcap;
    Py_ssize_t *off, *len, *src;
    Py_ssize_t n, tcap;
    uint32_t sbuf[512];
    Py_ssize_t soff[64], slen[64], ssrc[64];
} Toks;

static void
toks_init(Toks *k, PyObject *text, Py_ssize_t start, Py_ssize_t end)
{
    k->text = text;
    k->pos = start;
    k->end = end;
    k->buf = k->sbuf;
    k->bcap = (Py_ssize_t)(sizeof(k->sbuf) / sizeof(k->sbuf[0]));
    k->blen = 0;
    k->off = k->soff;
    k->len = k->slen;
    k->src = k->ssrc;
    k->tcap = 64;
    k->n = 0;
}

static void
toks_reset(Toks *k, Py_ssize_t start, Py_ssize_t end)
{
    k->pos = start;
    k->end = end;
    k->blen = 0;
    k->n = 0;
}

static void
toks_free(Toks *k)
{
    if (k->buf != k->sbuf)
        PyMem_Free(k->buf);
    if (k->off != k->soff) {
        PyMem_Free(k->off);
        PyMem_Free(k->len);
        PyMem_Free(k->src);
    }
}

#define TOKS_SIGMA (-2)

/* Read tokens until there are `want` (or the text is read): 0, TOKS_SIGMA
 * for a U+03A3, -1 out of memory (exception set). */
static int
toks_ensure(Toks *k, Py_ssize_t want)
{
    const int kind = PyUnicode_KIND(k->text);
    const void *data = PyUnicode_DATA(k->text);
    while (k->n < want) {
        Py_ssize_t i = k->pos;
        while (i < k->end && !is_token_char(PyUnicode_READ(kind, data, i)))
            i++;
        if (i >= k->end) {
            k->pos = i;
            return 0;
        }
        const Py_ssize_t start = i;
        while (i < k->end && is_token_char(PyUnicode_READ(kind, data, i)))
            i++;
        k->pos = i;
        const Py_ssize_t room = k->blen + 1 + 2 * (i - start);
        if (room > k->bcap) {
            Py_ssize_t cap = 2 * k->bcap;
            while (cap < room)
                cap *= 2;
            uint32_t *b = PyMem_Malloc((size_t)cap * sizeof(uint32_t));
            if (b == NULL) {
                PyErr_NoMemory();
                return -1;
            }
            memcpy(b, k->buf, (size_t)k->blen * sizeof(uint32_t));
            if (k->buf != k->sbuf)
                PyMem_Free(k->buf);
            k->buf = b;
            k->bcap = cap;
        }
        if (k->n == k->tcap) {
            const Py_ssize_t cap = 2 * k->tcap;
            Py_ssize_t *o = PyMem_Malloc((size_t)cap * sizeof(Py_ssize_t));
            Py_ssize_t *l = PyMem_Malloc((size_t)cap * sizeof(Py_ssize_t));
            Py_ssize_t *s = PyMem_Malloc((size_t)cap * sizeof(Py_ssize_t));
            if (o == NULL || l == NULL || s == NULL) {
                PyMem_Free(o);
                PyMem_Free(l);
                PyMem_Free(s);
                PyErr_NoMemory();
                return -1;
            }
            memcpy(o, k->off, (size_t)k->n * sizeof(Py_ssize_t));
            memcpy(l, k->len, (size_t)k->n * sizeof(Py_ssize_t));
            memcpy(s, k->src, (size_t)k->n * sizeof(Py_ssize_t));
            if (k->off != k->soff) {
                PyMem_Free(k->off);
                PyMem_Free(k->len);
                PyMem_Free(k->src);
            }
            k->off = o;
            k->len = l;
            k->src = s;
            k->tcap = cap;
        }
        k->buf[k->blen++] = ' ';
        const Py_ssize_t got = lower_token(k->text, start, i, k->buf + k->blen);
        if (got < 0)
            return TOKS_SIGMA;
        k->off[k->n] = k->blen;
        k->len[k->n] = got;
        k->src[k->n] = start;
        k->n++;
        k->blen += got;
    }
    return 0;
}

static inline int
tok_is(const MarkerTable *t, const Toks *k, Py_ssize_t i, const MSpan *s)
{
    return (Py_ssize_t)s->len == k->len[i] &&
           memcmp(k->buf + k->off[i], t->pool + s->off, s->len * sizeof(uint32_t)) == 0;
}

/* Whether opener `op` is at tokens[i] (tokens below `hi` only). */
static inline int
opener_here(const MarkerTable *t, const MOpener *op, const Toks *k, Py_ssize_t i, Py_ssize_t hi)
{
    if ((Py_ssize_t)op->ntok > hi - i)
        return 0;
    for (uint32_t m = 0; m < op->ntok; m++) {
        if (!tok_is(t, k, i + m, &t->spans[op->first + m]))
            return 0;
    }
    return 1;
}

/* Whether a one-token opener of `set` is cps[0:n]. */
static int
set_has(const MarkerTable *t, const MOpenerSet *set, const uint32_t *cps, Py_ssize_t n)
{
    const uint64_t h = cps_hash(cps, n);
    for (int32_t j = set->buckets[h & set->mask]; j >= 0; j = set->ops[j].next) {
        const MOpener *op = &set->ops[j];
        const MSpan *s = &t->spans[op->first];
        if (op->hash == h && (Py_ssize_t)s->len == n &&
            memcmp(t->pool + s->off, cps, (size_t)n * sizeof(uint32_t)) == 0)
            return 1;
    }
    return 0;
}

/* markers._is_no_space(token): 1, 0, or -1 with an exception set. */
static int
no_space_token(const MarkerTable *t, const Toks *k, Py_ssize_t i)
{
    if (k->len[i] == 0)
        return 0;
    const uint32_t ch = k->buf[k->off[i]];
    if (ch < 0x2E80) /* no Han, Hiragana or Katakana before (tests check) */
        return 0;
    if (t->no_space == NULL) { /* cleared by the cycle collector */
        PyErr_SetString(PyExc_RuntimeError, "MarkerTable: its no_space was cleared");
        return -1;
    }
    PyObject *s = PyUnicode_FromOrdinal((int)ch);
    if (s == NULL)
        return -1;
    PyObject *r = PyObject_CallOneArg(t->no_space, s);
    Py_DECREF(s);
    if (r == NULL)
        return -1;
    const int yes = PyObject_IsTrue(r);
    Py_DECREF(r);
    return yes;
}

/* markers._opener_at(tokens[:hi], i, openers): the characters of the longest
 * opener at tokens[i] (0 when none), or -1 with an exception set. */
static Py_ssize_t
opener_at(const MarkerTable *t, const MOpenerSet *set, const MOpenerSet *prefixes,
          const uint32_t *plens, Py_ssize_t nplens, const Toks *k, Py_ssize_t i, Py_ssize_t hi)
{
    if (i >= hi)
        return 0;
    Py_ssize_t best = 0;
    const uint64_t h = cps_hash(k->buf + k->off[i], k->len[i]);
    for (int32_t j = set->buckets[h & set->mask]; j >= 0; j = set->ops[j].next) {
        const MOpener *op = &set->ops[j];
        if (op->hash == h && (Py_ssize_t)op->chars > best && opener_here(t, op, k, i, hi))
            best = op->chars;
    }
    if (prefixes->n) {
        const int ns = no_space_token(t, k, i);
        if (ns < 0)
            return -1;
        if (ns) {
            for (Py_ssize_t m = 0; m < nplens; m++) {
                const Py_ssize_t n = plens[m];
                if (n <= best)
                    break;
                /* token[:n]: the whole token when n is longer (best is still n) */
                const Py_ssize_t cut = n < k->len[i] ? n : k->len[i];
                if (set_has(t, prefixes, k->buf + k->off[i], cut)) {
                    best = n;
                    break;
                }
            }
        }
    }
    return best;
}

/* markers._whole_opener: tokens of the longest opener at tokens[i] (i < hi). */
static Py_ssize_t
whole_opener(const MarkerTable *t, const MOpenerSet *set, const Toks *k, Py_ssize_t i,
             Py_ssize_t hi)
{
    Py_ssize_t best = 0;
    const uint64_t h = cps_hash(k->buf + k->off[i], k->len[i]);
    for (int32_t j = set->buckets[h & set->mask]; j >= 0; j = set->ops[j].next) {
        const MOpener *op = &set->ops[j];
        if (op->hash == h && (Py_ssize_t)op->ntok > best && opener_here(t, op, k, i, hi))
            best = op->ntok;
    }
    return best;
}

static Py_ssize_t
skip_openers(const MarkerTable *t, const MOpenerSet *set, const Toks *k, Py_ssize_t i,
             Py_ssize_t hi)
{
    while (i < hi) {
        const Py_ssize_t step = whole_opener(t, set, k, i, hi);
        if (!step)
            break;
        i += step;
    }
    return i;
}

/* markers._ending_at(" " + " ".join(tokens), endings): the longest ending the joined
 * tokens end with (0: none). `last` and `lasts`: the endings' last code points and their
 * set modulo 64 (endings_build). */
static Py_ssize_t
ending_at(const MarkerTable *t, const MSpan *endings, const uint32_t *last, uint64_t lasts,
          Py_ssize_t n, const Toks *k)
{
    const uint32_t *joined = k->buf;
    const Py_ssize_t jlen = k->blen;
    if (jlen == 0)
        return 0;
    const uint32_t end = joined[jlen - 1];
    if (!((lasts >> (end & 63)) & 1))
        return 0;
    Py_ssize_t best = 0;
    for (Py_ssize_t e = 0; e < n; e++) {
        if (last[e] != end)
            continue;
        const Py_ssize_t len = endings[e].len;
        if (len > best && len <= jlen &&
            memcmp(joined + jlen - len, t->pool + endings[e].off,
                   (size_t)len * sizeof(uint32_t)) == 0)
            best = len;
    }
    return best;
}

static inline int
is_closer(Py_UCS4 ch)
{
    /* markers._CLOSERS */
    switch (ch) {
    case '"': case '\'': case 0x201D: case 0x2019: case 0xBB: case ')': case ']': case '}':
    case '>': case '*': case '_': case '`': case '~': case ' ': case '\t': case '\r':
    case '\n':
        return 1;
    default:
        return 0;
    }
}

static inline int
is_dash(Py_UCS4 ch)
{
    return ch == '-' || ch == 0x2013 || ch == 0x2014;
}

static inline int
is_clause_mark(Py_UCS4 ch)
{
    return ch == ',' || ch == ';' || ch == ':' || ch == 0xFF0C || ch == 0xFF1B || ch == 0xFF1A;
}

enum { KIND_STATEMENT, KIND_QUESTION, KIND_REQUEST, KIND_EMPTY };

/* Where the tokens of text[lo:e] that the endings can reach begin: walking back
 * from e, the start of the first token from which the joined form " t ..." is at
 * least `want` long (a token's lowercase is never shorter than the token); -1
 * when the walk reaches lo (then read every token of the sentence). */
static Py_ssize_t
tail_start(const Toks *k, Py_ssize_t lo, Py_ssize_t e, Py_ssize_t want)
{
    const int kind = PyUnicode_KIND(k->text);
    const void *data = PyUnicode_DATA(k->text);
    Py_ssize_t q = e, got = 0;
    while (got < want) {
        while (q > lo && !is_token_char(PyUnicode_READ(kind, data, q - 1)))
            q--;
        const Py_ssize_t stop = q;
        while (q > lo && is_token_char(PyUnicode_READ(kind, data, q - 1)))
            q--;
        if (q <= lo)
            return -1;
        got += stop - q + 1;
    }
    return q;
}

/* markers._sentence_kind(text[s:e], asking=asking): a KIND_*, TOKS_SIGMA, or
 * -1 with an exception set. Tokens are read from the front only as far as the
 * fillers and openers look, and from the back as far as the endings reach
 * (into `tail`); all of them only when the clauses are read. */
static int
sentence_kind(const MarkerTable *t, Toks *k, Toks *tail, Py_ssize_t s, Py_ssize_t e, int asking)
{
    const int kind = PyUnicode_KIND(k->text);
    const void *data = PyUnicode_DATA(k->text);
    toks_reset(k, s, e);
    int r;
    Py_ssize_t head = 0;
    const Py_ssize_t fill = t->fillers.max_ntok ? (Py_ssize_t)t->fillers.max_ntok : 1;
    for (;;) {
        if ((r = toks_ensure(k, head + fill)) < 0)
            return r;
        if (head >= k->n)
            break;
        const Py_ssize_t step = whole_opener(t, &t->fillers, k, head, k->n);
        if (!step)
            break;
        head += step;
    }
    Py_ssize_t q = e;
    while (q > s && is_closer(PyUnicode_READ(kind, data, q - 1)))
        q--;
    int marked = 0;
    if (q > s) {
        const Py_UCS4 last = PyUnicode_READ(kind, data, q - 1);
        marked = last == '?' || last == 0xFF1F || last == 0x061F;
    }
    if (head >= k->n) /* fillers alone (ensured past head: every token is read) */
        return marked ? KIND_QUESTION : KIND_EMPTY;
    Py_ssize_t look = t->asking.max_ntok > t->requests.max_ntok ? t->asking.max_ntok
                                                                  : t->requests.max_ntok;
    if ((r = toks_ensure(k, head + (look ? look : 1))) < 0)
        return r;
    const Py_ssize_t asks_open = opener_at(t, &t->asking, &t->asking_prefixes, t->asking_plens,
                                           t->n_asking_plens, k, head, k->n);
    if (asks_open < 0)
        return -1;
    /* the joined tokens the endings are compared with: all of them, or a tail */
    const Toks *joined = k;
    if (t->longest_ending && k->pos < e) {
        const Py_ssize_t from = tail_start(k, k->pos, e, t->longest_ending);
        if (from < 0) {
            if ((r = toks_ensure(k, PY_SSIZE_T_MAX)) < 0)
                return r;
        }
        else {
            toks_reset(tail, from, e);
            if ((r = toks_ensure(tail, PY_SSIZE_T_MAX)) < 0)
                return r;
            joined = tail;
        }
    }
    const Py_ssize_t asks_end = ending_at(t, t->question_endings, t->question_last, t->question_lasts,
                  t->n_question_endings, joined);
    if (!marked) {
        Py_ssize_t p = s;
        while (p < e && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, p)))
            p++;
        marked = p < e && PyUnicode_READ(kind, data, p) == 0xBF;
    }
    if (asking && !(asks_open || asks_end || marked))
        return KIND_STATEMENT;
    const Py_ssize_t requests_open = opener_at(t, &t->requests, &t->request_prefixes,
                                               t->request_plens, t->n_request_plens, k, head,
                                               k->n);
    if (requests_open < 0)
        return -1;
    const Py_ssize_t requests_end =
        ending_at(t, t->request_endings, t->request_last, t->request_lasts,
                  t->n_request_endings, joined);
    if (requests_open && requests_open >= asks_open)
        return KIND_REQUEST;
    if (requests_end && requests_end >= asks_end)
        return KIND_REQUEST;
    if ((r = toks_ensure(k, PY_SSIZE_T_MAX)) < 0)
        return r;
    const Py_ssize_t n = k->n;
    /* clauses after a , ; : ， ； ： or a spaced dash (markers._clause) */
    Py_ssize_t p = s, tok = 0;
    int after_first = 0;
    Py_ssize_t clause = s;
    for (;;) {
        Py_ssize_t ms = -1, me = -1;
        while (p < e) {
            const Py_UCS4 ch = PyUnicode_READ(kind, data, p);
            if (is_clause_mark(ch)) {
                ms = p;
                me = p + 1;
                break;
            }
            if (Py_UNICODE_ISSPACE(ch) && p + 2 < e && is_dash(PyUnicode_READ(kind, data, p + 1)) &&
                Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, p + 2))) {
                ms = p;
                me = p + 3;
                break;
            }
            p++;
        }
        const Py_ssize_t clause_end = ms >= 0 ? ms : e;
        if (after_first) {
            /* the tokens of text[clause:clause_end] */
            while (tok < n && k->src[tok] < clause)
                tok++;
            Py_ssize_t hi = tok;
            while (hi < n && k->src[hi] < clause_end)
                hi++;
            const Py_ssize_t at = skip_openers(t, &t->fillers, k, tok, hi);
            const Py_ssize_t req = opener_at(t, &t->requests, &t->request_prefixes,
                                             t->request_plens, t->n_request_plens, k, at, hi);
            if (req < 0)
                return -1;
            if (req) {
                const Py_ssize_t ask = opener_at(t, &t->asking, &t->asking_prefixes,
                                                 t->asking_plens, t->n_asking_plens, k, at, hi);
                if (ask < 0)
                    return -1;
                if (req > ask)
                    return KIND_REQUEST;
            }
            tok = hi;
        }
        if (ms < 0)
            break;
        after_first = 1;
        clause = me;
        p = me;
    }
    if (asks_open || asks_end || marked)
        return KIND_QUESTION;
    return KIND_STATEMENT;
}

static inline int
is_run_mark(Py_UCS4 ch)
{
    return ch == '?' || ch == '!' || ch == 0xFF1F || ch == 0xFF01 || ch == 0x3002;
}

/* Whether a match of markers._SENTENCE_END ends just after text[q]. */
static inline int
sentence_end_at(int kind, const void *data, Py_ssize_t n, Py_ssize_t q)
{
    const Py_UCS4 ch = PyUnicode_READ(kind, data, q);
    if (ch == '\n')
        return 1;
    if (is_run_mark(ch))
        return q + 1 >= n || !is_run_mark(PyUnicode_READ(kind, data, q + 1));
    if (ch == '.')
        return q + 1 >= n || Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, q + 1));
    return 0;
}

/* Whether `text` may start with a slash command or hold an @mention (after
 * leading whitespace, str.lstrip's), which markers._split_command and
 * markers._mention read in Python. */
static int
may_hold_command(PyObject *text)
{
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    Py_ssize_t p = 0;
    while (p < n && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, p)))
        p++;
    if (p < n && PyUnicode_READ(kind, data, p) == '/')
        return 1;
    return PyUnicode_FindChar(text, '@', p, n, 1) != -1;
}

/* The Latin-1 characters that may end a sentence: \n ? ! . (？！。 are wider). */
static const unsigned char MAY_END[256] = {['\n'] = 1, ['?'] = 1, ['!'] = 1, ['.'] = 1};

PyDoc_STRVAR(MarkerTable_is_question_doc,
"is_question(text, whole, /) -> bool | None\n--\n\n"
"markers.is_question's answer for ``text``: a whole prompt (``whole``), or one\n"
"after its slash command with its @mentions blanked. ``None`` if a sentence it\n"
"reads holds U+03A3, or a whole prompt may hold a command, a mention or a\n"
"``#variable`` (Python blanks them first).");

static PyObject *
MarkerTable_is_question(MarkerTable *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyUnicode_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "is_question() takes a str and a bool");
        return NULL;
    }
    PyObject *text = args[0];
    const int whole = PyObject_IsTrue(args[1]);
    if (whole < 0)
        return NULL;
    if (whole && (may_hold_command(text) ||
                  PyUnicode_FindChar(text, '#', 0, PyUnicode_GET_LENGTH(text), 1) != -1))
        Py_RETURN_NONE; /* Python blanks mentions and #variables first */
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    Toks k, tail;
    toks_init(&k, text, 0, 0);
    toks_init(&tail, text, 0, 0);
    int found = 0, answer = 0;
    Py_ssize_t end = n;
    /* sentences from the last back: sentence [start, end) begins after the
     * last sentence end before end - 1 (the one at end - 1 is its own) */
    while (end > 0) {
        Py_ssize_t start = end - 1;
        if (kind == PyUnicode_1BYTE_KIND) { /* ？！。 are wider: only \n ? ! . here */
            const Py_UCS1 *d = (const Py_UCS1 *)data;
            while (start > 0) {
                while (start > 0 && !MAY_END[d[start - 1]])
                    start--;
                if (start == 0 || sentence_end_at(kind, data, n, start - 1))
                    break;
                start--;
            }
        }
        else {
            while (start > 0 && !sentence_end_at(kind, data, n, start - 1))
                start--;
        }
        Py_ssize_t p = start;
        while (p < end && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, p)))
            p++;
        if (p < end) { /* not blank */
            const int r = sentence_kind(self, &k, &tail, start, end, !found);
            if (r < 0) {
                toks_free(&k);
                toks_free(&tail);
                if (r == TOKS_SIGMA)
                    Py_RETURN_NONE;
                return NULL;
            }
            if (!found) {
                if (r != KIND_EMPTY) {
                    if (r != KIND_QUESTION)
                        break;
                    found = answer = 1;
                }
            }
            else if (r == KIND_REQUEST) {
                answer = 0;
                break;
            }
        }
        end = start;
    }
    toks_free(&k);
    toks_free(&tail);
    return PyBool_FromLong(answer);
}

PyDoc_STRVAR(MarkerTable_content_doc,
"content(text, limit, whole, /) -> tuple[str, ...] | None\n--\n\n"
"markers.content_tokens's answer for ``text`` (a whole prompt with ``whole``, or\n"
"one after its slash command), holding no ``@``: its tokens from the first one\n"
"no filler or request opener covers (the first ``limit`` of them; -1: all).\n"
"``None`` if a token it reads holds U+03A3, or a whole prompt may hold a command\n"
"or a mention (Python decides then).");

static PyObject *
MarkerTable_content(MarkerTable *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyUnicode_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "content() takes a str, a limit and a bool");
        return NULL;
    }
    PyObject *text = args[0];
    const Py_ssize_t limit = PyLong_AsSsize_t(args[1]);
    if (limit == -1 && PyErr_Occurred())
        return NULL;
    const int whole = PyObject_IsTrue(args[2]);
    if (whole < 0)
        return NULL;
    if (whole ? may_hold_command(text)
              : PyUnicode_FindChar(text, '@', 0, PyUnicode_GET_LENGTH(text), 1) != -1)
        Py_RETURN_NONE;
    Toks k;
    toks_init(&k, text, 0, PyUnicode_GET_LENGTH(text));
    const MOpenerSet *set = &self->skipping;
    Py_ssize_t i = 0;
    int r = 0;
    for (;;) {
        r = toks_ensure(&k, i + (Py_ssize_t)(set->max_ntok ? set->max_ntok : 1));
        if (r < 0 || i >= k.n)
            break;
        const Py_ssize_t step = whole_opener(self, set, &k, i, k.n);
        if (!step)
            break;
        i += step;
    }
    if (r == 0)
        r = toks_ensure(&k, limit < 0 || limit > PY_SSIZE_T_MAX - i ? PY_SSIZE_T_MAX : i + limit);
    if (r < 0) {
        toks_free(&k);
        if (r == TOKS_SIGMA)
            Py_RETURN_NONE;
        return NULL;
    }
    Py_ssize_t stop = k.n;
    if (limit >= 0 && limit < stop - i)
        stop = i + limit;
    const Py_ssize_t count = stop > i ? stop - i : 0;
    PyObject *out = PyTuple_New(count);
    if (out == NULL) {
        toks_free(&k);
        return NULL;
    }
    for (Py_ssize_t m = 0; m < count; m++) {
        PyObject *tok = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, k.buf + k.off[i + m],
                                                  k.len[i + m]);
        if (tok == NULL) {
            Py_DECREF(out);
            toks_free(&k);
            return NULL;
        }
        PyTuple_SET_ITEM(out, m, tok);
    }
    toks_free(&k);
    return out;
}

static PyMethodDef MarkerTable_methods[] = {
    {"is_question", (PyCFunction)(void (*)(void))MarkerTable_is_question, METH_FASTCALL,
     MarkerTable_is_question_doc},
    {"content", (PyCFunction)(void (*)(void))MarkerTable_content, METH_FASTCALL,
     MarkerTable_content_doc},
    {NULL, NULL, 0, NULL},
};

PyDoc_STRVAR(MarkerTable_doc,
"MarkerTable(fillers, skipping, requests, asking, request_prefixes, asking_prefixes,\n"
"            question_endings, request_endings, no_space)\n--\n\n"
"One Markers object compiled for the sentence readings (see\n"
"smista.core.conditions.markers._c_table): opener tuples of str (fillers; what\n"
"content skips; request openers; question words and openers), the prefix words\n"
"of scripts without spaces (str), the endings as compared (str), and the\n"
"predicate telling those scripts (called with one character).");

static PyType_Slot MarkerTable_slots[] = {
    {Py_tp_dealloc, MarkerTable_dealloc},
    {Py_tp_traverse, MarkerTable_traverse},
    {Py_tp_clear, MarkerTable_clear},
    {Py_tp_doc, (void *)MarkerTable_doc},
    {Py_tp_methods, MarkerTable_methods},
    {Py_tp_new, MarkerTable_new},
    {0, NULL},
};

static PyType_Spec MarkerTable_spec = {
    .name = SMISTA_SPEEDUPS_NAME ".MarkerTable",
    .basicsize = sizeof(MarkerTable),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_HAVE_GC,
    .slots = MarkerTable_slots,
};

/* -- SubstringSet ---------------------------------------------------------------- */

/* A fixed set of non-empty strings, found in a text in one pass: each text
 * position is filtered by a bitmap of the entries' first character (entries of
 * one character) and one of their first two characters (longer ones), hashed
 * to 16 bits, then the entries of that bucket are compared. Immutable once
 * built; holds only str (no GC). */

#define SUB_BITS 16
#define SUB_SIZE (1u << SUB_BITS)
/* memchr passes at most over an ASCII text for its anchors (a lowercase letter read
 * lowercased takes two: itself and its capital); more, and the pair scan reads it. */
#define SUB_ANCHOR_PASSES 8
/* Most entries one anchor character may hold (each is compared wherever it occurs); more,
 * and the pair scan reads the text. */
#define SUB_ANCHOR_GROUP 16

typedef struct {
    PyObject_HEAD
    PyObject *entries;     /* tuple of str, as given */
    uint32_t **points;     /* each entry's code points */
    Py_ssize_t *lengths;
    Py_ssize_t count;
    uint64_t one[SUB_SIZE / 64];  /* bitmap: hash of a one-character entry */
    uint64_t two[SUB_SIZE / 64];  /* bitmap: hash of a longer entry's first two */
    uint64_t narrow[SUB_SIZE / 64]; /* bitmap: first two (a << 8 | b) of a longer entry
                                     * below U+0100 throughout (a 1-byte text can hold no other) */
    unsigned char narrow_first[256]; /* whether such an entry starts with this character */
    uint32_t *starts;      /* CSR by hash of the first two: entry ids in ids[starts[h]..starts[h+1]] */
    uint32_t *ids;
    uint32_t *singles;     /* ids of the one-character entries */
    Py_ssize_t single_count;
    Py_ssize_t narrow_singles; /* how many of them are below U+0100 (a 1-byte text's range) */
    /* The anchor search of an ASCII text (sub_anchored): each ASCII entry of two
     * characters or more by its rarest character (SUB_RARITY), grouped by it. */
    int anchors;                /* 1: few enough anchors for it (SUB_ANCHOR_PASSES) */
    int anchor_count;           /* distinct anchor characters */
    unsigned char anchor_char[SUB_ANCHOR_PASSES];
    uint32_t anchor_start[SUB_ANCHOR_PASSES + 1]; /* group g: anchor_ids[start[g]..start[g+1]] */
    uint32_t *anchor_ids;       /* entry ids */
    Py_ssize_t *anchor_offset;  /* where in its entry each one's anchor sits */
} SubstringSet;

/* Most one-character entries below U+0100 that sub_scan() looks for with memchr in a
 * 1-byte text (past it: every pair of the text is read, as in wider texts). */
#define SUB_MEMCHR_SINGLES 8

static inline uint32_t
sub_hash1(uint32_t a)
{
    return (a * 0x9E3779B1u) >> (32 - SUB_BITS);
}

static inline uint32_t
sub_hash2(uint32_t a, uint32_t b)
{
    return ((a * 0x9E3779B1u) ^ (b * 0x85EBCA77u)) >> (32 - SUB_BITS);
}

#define BIT_SET(map, h) ((map)[(h) >> 6] |= 1ULL << ((h) & 63))
#define BIT_HAS(map, h) (((map)[(h) >> 6] >> ((h) & 63)) & 1)

static void
SubstringSet_dealloc(SubstringSet *self)
{
    if (self->points != NULL) {
        for (Py_ssize_t k = 0; k < self->count; k++)
            PyMem_Free(self->points[k]);
    }
    PyMem_Free(self->points);
    PyMem_Free(self->lengths);
    PyMem_Free(self->starts);
    PyMem_Free(self->ids);
    PyMem_Free(self->singles);
    PyMem_Free(self->anchor_ids);
    PyMem_Free(self->anchor_offset);
    Py_XDECREF(self->entries);
    PyTypeObject *type = Py_TYPE(self);
    type->tp_free((PyObject *)self);
    Py_DECREF(type);
}

/* How common an ASCII character is in prompts (a letter by its lowercase), roughly per
 * thousand characters of English text: an entry's anchor is its rarest character. Only
 * speed depends on it. */
static unsigned char
sub_rarity(uint32_t c)
{
    static const char common[] = " etaoinsrhldcumfpgwybvkxjqz";
    static const unsigned char per_mille[] = {160, 95, 68, 62, 58, 56, 54, 51, 48, 40, 33, 30,
                                              24, 23, 20, 18, 16, 15, 14, 13, 12, 8, 5, 2,
                                              1, 1, 1};
    if (c >= 'A' && c <= 'Z')
        c += 32;
    for (size_t i = 0; i + 1 < sizeof common; i++) {
        if ((uint32_t)common[i] == c)
            return per_mille[i];
    }
    if (c >= '0' && c <= '9')
        return 4;
    return c == '.' || c == ',' || c == '\n' ? 10 : 3;
}

/* Where entry `k`'s anchor sits: its rarest character (the earliest of equals), or -1
 * unless it is ASCII and two characters or more long. */
static Py_ssize_t
sub_anchor_of(const SubstringSet *self, Py_ssize_t k)
{
    const uint32_t *cp = self->points[k];
    const Py_ssize_t m = self->lengths[k];
    if (m < 2)
        return -1;
    Py_ssize_t best = 0;
    for (Py_ssize_t i = 0; i < m; i++) {
        if (cp[i] >= 0x80)
            return -1;
        if (sub_rarity(cp[i]) < sub_rarity(cp[best]))
            best = i;
    }
    return best;
}

/* The anchor plan of the set's ASCII entries of two characters or more (fields
 * anchor_*): each by its rarest character, the earliest of equals, grouped by that
 * character. `anchors` stays 0 when there are none, when their anchors would take more
 * than SUB_ANCHOR_PASSES memchr passes of a text read lowercased, or when one anchor
 * holds more than SUB_ANCHOR_GROUP entries. */
static int
sub_plan_anchors(SubstringSet *self)
{
    unsigned char chosen_char[SUB_ANCHOR_PASSES];
    Py_ssize_t group_size[SUB_ANCHOR_PASSES] = {0};
    int distinct = 0, passes = 0;
    Py_ssize_t longer = 0;
    for (Py_ssize_t k = 0; k < self->count; k++) {
        const Py_ssize_t best = sub_anchor_of(self, k);
        if (best < 0)
            continue;
        longer++;
        const unsigned char c = (unsigned char)self->points[k][best];
        int g = 0;
        while (g < distinct && chosen_char[g] != c)
            g++;
        if (g == distinct) {
            passes += (c >= 'a' && c <= 'z') ? 2 : 1;
            if (passes > SUB_ANCHOR_PASSES)
                return 0; /* the pair scan, as for any other text */
            chosen_char[distinct++] = c;
        }
        if (++group_size[g] > SUB_ANCHOR_GROUP)
            return 0;
    }
    if (longer == 0)
        return 0;
    self->anchor_ids = PyMem_Calloc((size_t)longer, sizeof(uint32_t));
    self->anchor_offset = PyMem_Calloc((size_t)longer, sizeof(Py_ssize_t));
    if (self->anchor_ids == NULL || self->anchor_offset == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    /* grouped by anchor character, in the order first chosen; entries in id order */
    uint32_t at = 0;
    for (int g = 0; g < distinct; g++) {
        self->anchor_char[g] = chosen_char[g];
        self->anchor_start[g] = at;
        for (Py_ssize_t k = 0; k < self->count; k++) {
            const Py_ssize_t best = sub_anchor_of(self, k);
            if (best < 0 || self->points[k][best] != chosen_char[g])
                continue;
            self->anchor_ids[at] = (uint32_t)k;
            self->anchor_offset[at++] = best;
        }
    }
    self->anchor_start[distinct] = at;
    self->anchor_count = distinct;
    self->anchors = 1;
    return 0;
}

static PyObject *
SubstringSet_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"entries", NULL};
    PyObject *given;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O", kwlist, &given))
        return NULL;
    PyObject *entries = PySequence_Tuple(given);
    if (entries == NULL)
        return NULL;
    const Py_ssize_t n = PyTuple_GET_SIZE(entries);
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *e = PyTuple_GET_ITEM(entries, k);
        if (!PyUnicode_Check(e) || PyUnicode_GET_LENGTH(e) == 0) {
            Py_DECREF(entries);
            PyErr_SetString(PyExc_TypeError, "SubstringSet entries must be non-empty str");
            return NULL;
        }
    }
    SubstringSet *self = (SubstringSet *)type->tp_alloc(type, 0);
    if (self == NULL) {
        Py_DECREF(entries);
        return NULL;
    }
    /* tp_alloc zeroes the object: dealloc is safe at any failure below */
    self->entries = entries;
    self->points = PyMem_Calloc((size_t)n + 1, sizeof(uint32_t *));
    self->lengths = PyMem_Calloc((size_t)n + 1, sizeof(Py_ssize_t));
    self->starts = PyMem_Calloc(SUB_SIZE + 1, sizeof(uint32_t));
    self->ids = PyMem_Calloc((size_t)n + 1, sizeof(uint32_t));
    self->singles = PyMem_Calloc((size_t)n + 1, sizeof(uint32_t));
    if (self->points == NULL || self->lengths == NULL || self->starts == NULL ||
        self->ids == NULL || self->singles == NULL) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *e = PyTuple_GET_ITEM(entries, k);
        const Py_ssize_t m = PyUnicode_GET_LENGTH(e);
        uint32_t *cp = PyMem_Malloc((size_t)m * sizeof(uint32_t));
        if (cp == NULL) {
            Py_DECREF(self);
            return PyErr_NoMemory();
        }
        for (Py_ssize_t i = 0; i < m; i++)
            cp[i] = PyUnicode_READ_CHAR(e, i);
        self->points[k] = cp;
        self->lengths[k] = m;
        self->count = k + 1;
        if (m == 1) {
            BIT_SET(self->one, sub_hash1(cp[0]));
            self->singles[self->single_count++] = (uint32_t)k;
            self->narrow_singles += cp[0] < 0x100;
        }
        else {
            const uint32_t h = sub_hash2(cp[0], cp[1]);
            BIT_SET(self->two, h);
            self->starts[h + 1]++;
            int narrow = 1;
            for (Py_ssize_t i = 0; i < m; i++)
                narrow &= cp[i] < 0x100;
            if (narrow) {
                BIT_SET(self->narrow, cp[0] << 8 | cp[1]);
                self->narrow_first[cp[0]] = 1;
            }
        }
    }
    for (uint32_t h = 0; h < SUB_SIZE; h++)
        self->starts[h + 1] += self->starts[h];
    uint32_t *fill = PyMem_Malloc(SUB_SIZE * sizeof(uint32_t));
    if (fill == NULL) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    memcpy(fill, self->starts, SUB_SIZE * sizeof(uint32_t));
    for (Py_ssize_t k = 0; k < n; k++) {
        if (self->lengths[k] > 1) {
            const uint32_t h = sub_hash2(self->points[k][0], self->points[k][1]);
            self->ids[fill[h]++] = (uint32_t)k;
        }
    }
    PyMem_Free(fill);
    if (sub_plan_anchors(self) < 0) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

/* A text character as str.lower() gives it, for find_lower(): Latin-1 from the table
 * (in a text of any kind: most characters of a wider text are ASCII, and the table
 * costs no call); a wider one by its simple lowercase mapping, which is str.lower()'s
 * (one character) for every character but U+0130 and U+03A3, whose texts find_lower()
 * declines. */
#define SUB_LOWER(kind, ch)                                                          \
    ((kind) == PyUnicode_1BYTE_KIND || (ch) < 0x100 ? (uint32_t)LOWER1[(ch)]          \
                                                    : (uint32_t)Py_UNICODE_TOLOWER(ch))

/* Whether entry `k` occurs in the text at position `i` (its first two already hashed alike);
 * `lower`: the text's characters are compared lowercased (SUB_LOWER). */
static inline int
sub_at(const SubstringSet *self, Py_ssize_t k, int kind, const void *data, Py_ssize_t n,
       Py_ssize_t i, int lower)
{
    const Py_ssize_t m = self->lengths[k];
    if (i + m > n)
        return 0;
    const uint32_t *cp = self->points[k];
    for (Py_ssize_t j = 0; j < m; j++) {
        const uint32_t ch = PyUnicode_READ(kind, data, i + j);
        if ((lower ? SUB_LOWER(kind, ch) : ch) != cp[j])
            return 0;
    }
    return 1;
}

PyDoc_STRVAR(SubstringSet_find_doc,
"find(text, /) -> list[str]\n--\n\n"
"The entries ``text`` contains (compared as given: lowercase the text first\n"
"for entries given lowercased), each once, in the order given.");

/* The anchor search of an ASCII text (only ASCII entries can occur in it): each anchor
 * character is looked for with memchr (each byte reading as it: itself, and its capital
 * when read lowercased; a capital anchor read lowercased is never there), and the entries
 * anchored on it are compared where it sits. Returns `got` with the entries found added. */
static Py_ssize_t
sub_anchored(const SubstringSet *self, const Py_UCS1 *d, Py_ssize_t n, unsigned char *seen,
             uint32_t *found, Py_ssize_t got, Py_ssize_t left, int lower)
{
    const Py_UCS1 *end = d + n;
    for (int g = 0; g < self->anchor_count && left > 0; g++) {
        const unsigned char a = self->anchor_char[g];
        unsigned char bytes[2];
        int count = 0;
        if (!lower || !(a >= 'A' && a <= 'Z'))
            bytes[count++] = a;
        if (lower && a >= 'a' && a <= 'z')
            bytes[count++] = (unsigned char)(a - 32);
        for (int b = 0; b < count && left > 0; b++) {
            const Py_UCS1 *p = d;
            while (left > 0 && p < end &&
                   (p = memchr(p, bytes[b], (size_t)(end - p))) != NULL) {
                const Py_ssize_t i = p - d;
                for (uint32_t at = self->anchor_start[g]; at < self->anchor_start[g + 1]; at++) {
                    const uint32_t k = self->anchor_ids[at];
                    const Py_ssize_t start = i - self->anchor_offset[at];
                    if (!seen[k] && start >= 0 &&
                        sub_at(self, k, PyUnicode_1BYTE_KIND, d, n, start, lower)) {
                        seen[k] = 1;
                        found[got++] = k;
                        left--;
                    }
                }
                p++;
            }
        }
    }
    return got;
}

/* find()'s pass over a text of one kind (inlined per kind); `lower`: the text is read
 * lowercased (SUB_LOWER). An ASCII text (`ascii`) is searched by its entries' anchors
 * (sub_anchored) when they are few; another 1-byte text is filtered by the first two
 * characters themselves (the `narrow` bitmap), others by their hash. */
static inline Py_ssize_t
sub_scan(const SubstringSet *self, int kind, const void *data, Py_ssize_t n,
         unsigned char *seen, uint32_t *found, int lower, int ascii)
{
    Py_ssize_t left = self->count;
    Py_ssize_t got = 0;
    /* a one-character entry past a text's kind can never be found in it */
    const int singles = kind == PyUnicode_1BYTE_KIND ? self->narrow_singles > 0
                                                     : self->single_count > 0;
    if (n == 0)
        return 0;
    if (kind == PyUnicode_1BYTE_KIND && singles && self->narrow_singles <= SUB_MEMCHR_SINGLES) {
        /* A few one-character entries that can occur (a newline, say): each is looked for
         * with memchr (vectorized), for each byte that reads as it, and then the longer
         * entries as below, never reading every pair of the text for them. */
        const Py_UCS1 *d = (const Py_UCS1 *)data;
        for (Py_ssize_t s = 0; s < self->single_count && left > 0; s++) {
            const uint32_t k = self->singles[s];
            const uint32_t cp = self->points[k][0];
            if (cp >= 0x100 || seen[k])
                continue;
            int hit;
            if (!lower)
                hit = memchr(d, (int)cp, (size_t)n) != NULL;
            else { /* the bytes LOWER1 maps to cp: cp itself, and the one 32 below */
                hit = LOWER1[cp] == cp && memchr(d, (int)cp, (size_t)n) != NULL;
                if (!hit && cp >= 32 && LOWER1[cp - 32] == cp)
                    hit = memchr(d, (int)(cp - 32), (size_t)n) != NULL;
            }
            if (hit) {
                seen[k] = 1;
                found[got++] = k;
                left--;
            }
        }
    }
    if (ascii && self->anchors && (!singles || self->narrow_singles <= SUB_MEMCHR_SINGLES))
        return sub_anchored(self, (const Py_UCS1 *)data, n, seen, found, got, left, lower);
    if (kind == PyUnicode_1BYTE_KIND &&
        (!singles || self->narrow_singles <= SUB_MEMCHR_SINGLES)) {
        /* No one-character entry is left to find: only positions where an entry that can
         * occur starts (its first character, then its first two) are looked at. */
        const Py_UCS1 *d = (const Py_UCS1 *)data;
        for (Py_ssize_t i = 0; i + 1 < n && left > 0; i++) {
            const uint32_t c = lower ? LOWER1[d[i]] : d[i];
            if (!self->narrow_first[c])
                continue;
            const uint32_t e = lower ? LOWER1[d[i + 1]] : d[i + 1];
            if (!BIT_HAS(self->narrow, c << 8 | e))
                continue;
            const uint32_t h = sub_hash2(c, e);
            for (uint32_t at = self->starts[h]; at < self->starts[h + 1]; at++) {
                const uint32_t k = self->ids[at];
                if (!seen[k] && sub_at(self, k, kind, data, n, i, lower)) {
                    seen[k] = 1;
                    found[got++] = k;
                    left--;
                }
            }
        }
        return got;
    }
    uint32_t a = PyUnicode_READ(kind, data, 0);
    if (lower)
        a = SUB_LOWER(kind, a);
    for (Py_ssize_t i = 0; i < n && left > 0; i++) {
        if (singles && BIT_HAS(self->one, sub_hash1(a))) {
            for (Py_ssize_t s = 0; s < self->single_count; s++) {
                const uint32_t k = self->singles[s];
                if (!seen[k] && self->points[k][0] == a) {
                    seen[k] = 1;
                    found[got++] = k;
                    left--;
                }
            }
        }
        if (i + 1 >= n)
            break;
        uint32_t b = PyUnicode_READ(kind, data, i + 1);
        if (lower)
            b = SUB_LOWER(kind, b);
        const uint32_t pair = a << 8 | b;
        const uint32_t h = sub_hash2(a, b);
        a = b;
        if (kind == PyUnicode_1BYTE_KIND ? !BIT_HAS(self->narrow, pair) : !BIT_HAS(self->two, h))
            continue;
        for (uint32_t at = self->starts[h]; at < self->starts[h + 1]; at++) {
            const uint32_t k = self->ids[at];
            if (!seen[k] && sub_at(self, k, kind, data, n, i, lower)) {
                seen[k] = 1;
                found[got++] = k;
                left--;
            }
        }
    }
    return got;
}

/* find() (`lower` 0) and find_lower() (`lower` 1). */
static PyObject *
sub_find(SubstringSet *self, PyObject *text, int lower)
{
    const void *data = PyUnicode_DATA(text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    /* per entry: whether found; and the ids found, in the order found */
    unsigned char seen_small[1024];
    uint32_t found_small[1024];
    unsigned char *seen = seen_small;
    uint32_t *found = found_small;
    const size_t count = (size_t)self->count;
    if (count > 1024) {
        seen = PyMem_Malloc(count);
        found = PyMem_Malloc(count * sizeof(uint32_t));
        if (seen == NULL || found == NULL) {
            PyMem_Free(seen);
            PyMem_Free(found);
            return PyErr_NoMemory();
        }
    }
    memset(seen, 0, count);
    Py_ssize_t got;
    switch (PyUnicode_KIND(text)) {
    case PyUnicode_1BYTE_KIND: {
        const int ascii = PyUnicode_IS_ASCII(text);
        got = lower ? sub_scan(self, PyUnicode_1BYTE_KIND, data, n, seen, found, 1, ascii)
                    : sub_scan(self, PyUnicode_1BYTE_KIND, data, n, seen, found, 0, ascii);
        break;
    }
    case PyUnicode_2BYTE_KIND:
        got = lower ? sub_scan(self, PyUnicode_2BYTE_KIND, data, n, seen, found, 1, 0)
                    : sub_scan(self, PyUnicode_2BYTE_KIND, data, n, seen, found, 0, 0);
        break;
    default:
        got = lower ? sub_scan(self, PyUnicode_4BYTE_KIND, data, n, seen, found, 1, 0)
                    : sub_scan(self, PyUnicode_4BYTE_KIND, data, n, seen, found, 0, 0);
        break;
    }
    /* the order given: an insertion sort of the (few) ids found */
    for (Py_ssize_t a = 1; a < got; a++) {
        const uint32_t v = found[a];
        Py_ssize_t b = a - 1;
        while (b >= 0 && found[b] > v) {
            found[b + 1] = found[b];
            b--;
        }
        found[b + 1] = v;
    }
    PyObject *out = PyList_New(got);
    for (Py_ssize_t k = 0; out != NULL && k < got; k++) {
        PyObject *entry = PyTuple_GET_ITEM(self->entries, found[k]);
        Py_INCREF(entry);
        PyList_SET_ITEM(out, k, entry);
    }
    if (seen != seen_small) {
        PyMem_Free(seen);
        PyMem_Free(found);
    }
    return out;
}

static PyObject *
SubstringSet_find(SubstringSet *self, PyObject *text)
{
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "find() text must be str");
        return NULL;
    }
    return sub_find(self, text, 0);
}

PyDoc_STRVAR(SubstringSet_find_lower_doc,
"find_lower(text, /) -> list[str] | None\n--\n\n"
"``find(text.lower())``, the text read lowercased as it goes (no lowered copy\n"
"made); None for a text holding U+0130 or U+03A3 (lowercased to two characters,\n"
"or by their neighbours).");

static PyObject *
SubstringSet_find_lower(SubstringSet *self, PyObject *text)
{
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "find_lower() text must be str");
        return NULL;
    }
    const int kind = PyUnicode_KIND(text);
    if (kind != PyUnicode_1BYTE_KIND) {
        /* U+0130 lowercases to two characters, U+03A3 by its neighbours */
        const void *data = PyUnicode_DATA(text);
        const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
        for (Py_ssize_t i = 0; i < n; i++) {
            const Py_UCS4 ch = PyUnicode_READ(kind, data, i);
            if (ch == 0x130 || ch == 0x3A3)
                Py_RETURN_NONE;
        }
    }
    return sub_find(self, text, 1);
}

static Py_ssize_t
SubstringSet_len(SubstringSet *self)
{
    return self->count;
}

static PyMethodDef SubstringSet_methods[] = {
    {"find", (PyCFunction)SubstringSet_find, METH_O, SubstringSet_find_doc},
    {"find_lower", (PyCFunction)SubstringSet_find_lower, METH_O, SubstringSet_find_lower_doc},
    {NULL, NULL, 0, NULL},
};

PyDoc_STRVAR(SubstringSet_doc,
"SubstringSet(entries)\n--\n\n"
"Non-empty strings to look for in texts, all in one pass (see find()).");

static PyType_Slot SubstringSet_slots[] = {
    {Py_tp_dealloc, SubstringSet_dealloc},
    {Py_sq_length, SubstringSet_len},
    {Py_tp_doc, (void *)SubstringSet_doc},
    {Py_tp_methods, SubstringSet_methods},
    {Py_tp_new, SubstringSet_new},
    {0, NULL},
};

static PyType_Spec SubstringSet_spec = {
    .name = SMISTA_SPEEDUPS_NAME ".SubstringSet",
    .basicsize = sizeof(SubstringSet),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = SubstringSet_slots,
};

/* -- FeatureTable ---------------------------------------------------------------- */

static void
FeatureTable_dealloc(FeatureTable *self)
{
    PyMem_Free(self->slots);
    PyMem_Free(self->offsets);
    PyMem_Free(self->pool);
    PyMem_Free(self->weights);
    Py_XDECREF(self->features);
    PyTypeObject *type = Py_TYPE(self);
    type->tp_free((PyObject *)self);
    Py_DECREF(type);
}

static PyObject *
FeatureTable_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"weights", "lanes", "max_tokens", NULL};
    PyObject *weights;
    Py_ssize_t lanes, max_tokens;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!nn", kwlist, &PyDict_Type, &weights, &lanes,
                                     &max_tokens))
        return NULL;
    if (lanes < 1 || lanes > 1024 || max_tokens < 0) {
        PyErr_SetString(PyExc_ValueError, "FeatureTable needs 1 to 1024 lanes, max_tokens >= 0");
        return NULL;
    }
    /* A snapshot of the items: the list owns each (feature, row) pair, so nothing the
     * conversions below may run (a row's __iter__, a weight's __index__) can change or free
     * what is being read, and a free-threaded build copies the dict under its lock. */
    PyObject *items = PyDict_Items(weights);
    if (items == NULL)
        return NULL;
    const Py_ssize_t n = PyList_GET_SIZE(items);
    if (n >= (Py_ssize_t)(UINT32_MAX / 4)) {
        Py_DECREF(items);
        PyErr_SetString(PyExc_ValueError, "FeatureTable: too many features");
        return NULL;
    }
    FeatureTable *self = (FeatureTable *)type->tp_alloc(type, 0);
    if (self == NULL) {
        Py_DECREF(items);
        return NULL;
    }
    /* tp_alloc zeroes the object: dealloc is safe at any failure below */
    self->lanes = lanes;
    self->max_tokens = max_tokens;
    size_t size = 8;
    while (size < (size_t)n * 4) /* (at most a quarter full: most tokens are no feature, and a
                                   * miss ends at the first empty slot) */
        size <<= 1;
    self->mask = size - 1;
    self->features = PyTuple_New(n);
    self->slots = PyMem_Calloc(size, sizeof(FeatureSlot));
    self->offsets = PyMem_Calloc((size_t)n + 1, sizeof(uint32_t));
    self->weights = PyMem_Calloc((size_t)n * (size_t)lanes + 1, sizeof(int32_t));
    if (self->features == NULL || self->slots == NULL || self->offsets == NULL ||
        self->weights == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    size_t pool_cap = 64, pool_len = 0;
    self->pool = PyMem_Malloc(pool_cap);
    if (self->pool == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    Py_ssize_t k = 0;
    while (k < n) {
        PyObject *pair = PyList_GET_ITEM(items, k);
        PyObject *feature = PyTuple_GET_ITEM(pair, 0);
        PyObject *row = PyTuple_GET_ITEM(pair, 1);
        if (!PyUnicode_Check(feature)) {
            PyErr_SetString(PyExc_TypeError, "FeatureTable features must be str");
            goto fail;
        }
        PyObject *seq = PySequence_Fast(row, "FeatureTable weights must be sequences of int");
        if (seq == NULL)
            goto fail;
        if (PySequence_Fast_GET_SIZE(seq) != lanes) {
            Py_DECREF(seq);
            PyErr_Format(PyExc_ValueError, "feature %R needs %zd weights", feature, lanes);
            goto fail;
        }
        for (Py_ssize_t l = 0; l < lanes; l++) {
            long w = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, l));
            if (w == -1 && PyErr_Occurred()) {
                Py_DECREF(seq);
                goto fail;
            }
            if (w < -32768 || w > 32767) {
                Py_DECREF(seq);
                PyErr_Format(PyExc_ValueError, "feature %R: weights must lie in [-32768, 32767]",
                             feature);
                goto fail;
            }
            self->weights[k * lanes + l] = (int32_t)w;
        }
        Py_DECREF(seq);
        const Py_ssize_t m = PyUnicode_GET_LENGTH(feature);
        if (pool_len + (size_t)m * 4 > pool_cap) {
            while (pool_len + (size_t)m * 4 > pool_cap)
                pool_cap *= 2;
            unsigned char *bigger = PyMem_Realloc(self->pool, pool_cap);
            if (bigger == NULL) {
                PyErr_NoMemory();
                goto fail;
            }
            self->pool = bigger;
        }
        const int kind = PyUnicode_KIND(feature);
        const void *data = PyUnicode_DATA(feature);
        const size_t start = pool_len;
        for (Py_ssize_t i = 0; i < m; i++)
            pool_len += (size_t)put_utf8(self->pool + pool_len, PyUnicode_READ(kind, data, i));
        if (pool_len > UINT32_MAX) {
            PyErr_SetString(PyExc_ValueError, "FeatureTable: features too long");
            goto fail;
        }
        if (pool_len - start > self->max_key)
            self->max_key = pool_len - start;
        if (m == 3 && PyUnicode_READ(kind, data, 0) == '#')
            self->has_pairs = 1;
        /* a dict's keys are distinct strings, so distinct keys: no lookup first */
        const uint32_t h = key_hash(self->pool + start, pool_len - start);
        size_t i = h & self->mask;
        while (self->slots[i].hash != 0)
            i = (i + 1) & self->mask;
        self->slots[i].hash = h;
        self->slots[i].id = (uint32_t)k;
        self->offsets[k + 1] = (uint32_t)pool_len;
        Py_INCREF(feature);
        PyTuple_SET_ITEM(self->features, k, feature);
        self->count = ++k;
    }
    Py_DECREF(items);
    return (PyObject *)self;
fail:
    Py_DECREF(items);
    Py_DECREF(self);
    return NULL;
}

/* Whether the (lowercased) token `cp[0..n)` has a character of a script written without
 * spaces: smista.core.textmodel.spaceless. */
static inline int
spaceless_cps(const uint32_t *cp, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        const uint32_t o = cp[i];
        if (o >= 0x2E80 || (o >= 0x0E00 && o <= 0x0EFF) || (o >= 0x1000 && o <= 0x109F) ||
            (o >= 0x1780 && o <= 0x17FF))
            return 1;
    }
    return 0;
}

/* Look up the key `key[0..n)` and add its id if it is a feature: 0, or -1 with an
 * exception set. */
static inline int
add_key(const FeatureTable *self, const unsigned char *key, size_t n, IdList *found)
{
    const Py_ssize_t id = feature_id(self, key, n);
    return id >= 0 ? ids_add(found, id) : 0;
}

/* add_key() for a key zero-padded to 16 bytes (a buffer of at least 16): a short
 * one is hashed in place, as key_hash() hashes its zero-padded copy. */
static inline int
add_padded_key(const FeatureTable *self, const unsigned char *key, size_t n, IdList *found)
{
    const uint32_t h = n <= 16 ? key_hash_short(key, n) : key_hash(key, n);
    const Py_ssize_t id = feature_id_hashed(self, key, n, h);
    return id >= 0 ? ids_add(found, id) : 0;
}

/* feature_ids()' next token in a non-ASCII text of code unit `T`: skips to it from `i`
 * (`start` == n: none left) and past it, clearing `plain` if it holds a non-ASCII
 * character. While it is ASCII, its characters lowercased (lower_token()'s, one byte
 * each) are written to `key` as far as max_key bytes, zero-padded to 16: an ASCII
 * token's whole key when it may be a feature, with no second pass and no kind switch. */
/* The character pairs of the lowercased token `cp[0..k)` (spaceless, k > 1) into
 * `found`, after `*prev` (the code point before cp[0], none when `*prev` > 0x10FFFF),
 * which becomes the last one: 0, -1 with an exception set. */
static int
add_pairs(const FeatureTable *self, const uint32_t *cp, Py_ssize_t k, uint32_t *prev,
          IdList *found)
{
    unsigned char pair[9];
    pair[0] = '#';
    for (Py_ssize_t j = 0; j < k; j++) {
        if (*prev <= 0x10FFFF) {
            size_t plen = 1;
            plen += (size_t)put_utf8(pair + plen, *prev);
            plen += (size_t)put_utf8(pair + plen, cp[j]);
            if (add_key(self, pair, plen, found) < 0)
                return -1;
        }
        *prev = cp[j];
    }
    return 0;
}

/* The features of the non-ASCII token text[start:end] longer than FEATURE_CHUNK
 * characters, as feature_ids() finds a short one's (itself when its key is at most
 * max_key bytes, its character pairs when spaceless), lowercased a chunk at a time
 * so that memory stays bounded whatever its length: a first pass writes the key as
 * far as it may be one and sees whether it is spaceless (and holds U+03A3), a second
 * one, for the pairs, lowercases it again. `key`: max_key + 4 bytes of room. 0, 1
 * when it holds U+03A3, -1 with an exception set. */
static int
long_token_features(const FeatureTable *self, PyObject *text, Py_ssize_t start,
                    Py_ssize_t end, unsigned char *key, IdList *found)
{
    uint32_t cp[2 * FEATURE_CHUNK]; /* each character lowercases to one or two */
    const size_t max_key = self->max_key;
    size_t len = 0;
    int spaceless = 0;
    for (Py_ssize_t at = start; at < end; at += FEATURE_CHUNK) {
        const Py_ssize_t stop = end - at > FEATURE_CHUNK ? at + FEATURE_CHUNK : end;
        const Py_ssize_t k = lower_token(text, at, stop, cp);
        if (k < 0)
            return 1;
        for (Py_ssize_t j = 0; j < k && len <= max_key; j++)
            len += (size_t)put_utf8(key + len, cp[j]);
        spaceless = spaceless || spaceless_cps(cp, k);
    }
    if (len <= max_key && add_key(self, key, len, found) < 0)
        return -1;
    if (!self->has_pairs || !spaceless) /* (more than one code point: it is this long) */
        return 0;
    uint32_t prev = 0x110000; /* none */
    for (Py_ssize_t at = start; at < end; at += FEATURE_CHUNK) {
        const Py_ssize_t stop = end - at > FEATURE_CHUNK ? at + FEATURE_CHUNK : end;
        const Py_ssize_t k = lower_token(text, at, stop, cp);
        if (add_pairs(self, cp, k, &prev, found) < 0)
            return -1;
    }
    return 0;
}

#define FEATURE_TOKEN(T)                                                                \
    do {                                                                                \
        const T *d_ = (const T *)data;                                                  \
        while (i < n && !is_token_char(d_[i]))                                          \
            i++;                                                                        \
        start = i;                                                                      \
        memset(key, 0, 16); /* (see add_padded_key) */                                  \
        for (; i < n && is_token_char(d_[i]); i++) {                                    \
            if (d_[i] >= 128)                                                           \
                plain = 0;                                                              \
            else if (written < max_key)                                                 \
                key[written++] = LOWER[d_[i]];                                          \
        }                                                                               \
    } while (0)

/* The features of the token text[start:end] that is not all ASCII (`plain` 0) or is
 * (`plain` 1: its key is written here), as feature_ids() reads each token: itself when
 * its key (lowercased, as UTF-8) is at most max_key bytes, and its character pairs when
 * it is spaceless. `key`: max_key + 4 bytes of room, at least 16; `cp`: room for
 * 2 * FEATURE_CHUNK code points. 0, 1 when it holds U+03A3, -1 with an exception set. */
static int
token_features(const FeatureTable *self, PyObject *text, Py_ssize_t start, Py_ssize_t end,
               int plain, unsigned char *key, uint32_t *cp, IdList *found)
{
    const size_t max_key = self->max_key;
    const Py_ssize_t m = end - start;
    if (plain) {
        if ((size_t)m > max_key)
            return 0;
        const int kind = PyUnicode_KIND(text);
        const void *data = PyUnicode_DATA(text);
        memset(key, 0, 16); /* (see add_padded_key) */
        for (Py_ssize_t j = 0; j < m; j++)
            key[j] = LOWER[PyUnicode_READ(kind, data, start + j)];
        return add_padded_key(self, key, (size_t)m, found);
    }
    if (m > FEATURE_CHUNK)
        return long_token_features(self, text, start, end, key, found);
    const Py_ssize_t k = lower_token(text, start, end, cp);
    if (k < 0)
        return 1;
    size_t len = 0;
    for (Py_ssize_t j = 0; j < k && len <= max_key; j++)
        len += (size_t)put_utf8(key + len, cp[j]);
    if (len <= max_key && add_key(self, key, len, found) < 0)
        return -1;
    if (self->has_pairs && k > 1 && spaceless_cps(cp, k)) {
        uint32_t prev = 0x110000; /* none */
        if (add_pairs(self, cp, k, &prev, found) < 0)
            return -1;
    }
    return 0;
}

/* The known features among `corrected` (any iterable of str) into `found`: 0, -1 with
 * an exception set. `key`: max_key + 4 bytes of room. */
static int
corrected_features(const FeatureTable *self, PyObject *corrected, unsigned char *key,
                   IdList *found)
{
    if ((PyAnySet_Check(corrected) && PySet_GET_SIZE(corrected) == 0) ||
        (PyTuple_Check(corrected) && PyTuple_GET_SIZE(corrected) == 0))
        return 0;
    const size_t max_key = self->max_key;
    int status = 0;
    PyObject *iter = PyObject_GetIter(corrected);
    PyObject *word;
    if (iter == NULL)
        return -1;
    while (status == 0 && (word = PyIter_Next(iter)) != NULL) {
        if (!PyUnicode_Check(word)) {
            PyErr_SetString(PyExc_TypeError, "corrected words must be str");
            status = -1;
        }
        else {
            const int wkind = PyUnicode_KIND(word);
            const void *wdata = PyUnicode_DATA(word);
            const Py_ssize_t wn = PyUnicode_GET_LENGTH(word);
            size_t len = 0;
            for (Py_ssize_t j = 0; j < wn && len <= max_key; j++)
                len += (size_t)put_utf8(key + len, PyUnicode_READ(wkind, wdata, j));
            if (len <= max_key && add_key(self, key, len, found) < 0)
                status = -1;
        }
        Py_DECREF(word);
    }
    Py_DECREF(iter);
    if (status == 0 && PyErr_Occurred())
        status = -1;
    return status;
}

/* A key buffer of max_key + 4 bytes (at least 16): `small` when it is large enough. */
static unsigned char *
feature_key(const FeatureTable *self, unsigned char *small, size_t small_size)
{
    if (self->max_key + 4 <= small_size)
        return small;
    unsigned char *key = PyMem_Malloc(self->max_key + 4);
    if (key == NULL)
        PyErr_NoMemory();
    return key;
}

/* The known features of `text` and `corrected` (any iterable of str) into `found`:
 * 0, 1 when a token read holds U+03A3 (Python decides then), -1 with an exception set. */
static int
feature_ids(const FeatureTable *self, PyObject *text, PyObject *corrected, IdList *found)
{
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    const size_t max_key = self->max_key;
    /* a key is written only while it may still be a feature: max_key bytes and the
     * last character's (up to 4) */
    unsigned char key_small[256];
    unsigned char *key = feature_key(self, key_small, sizeof(key_small));
    if (key == NULL)
        return -1;
    uint32_t cp[2 * FEATURE_CHUNK]; /* a short token, lowercased */
    int status = 0;
    Py_ssize_t tokens = 0, i = 0;
    if (PyUnicode_IS_ASCII(text)) {
        const unsigned char *p = (const unsigned char *)data;
        while (tokens < self->max_tokens) {
            while (i < n && LOWER[p[i]] == 0)
                i++;
            if (i == n)
                break;
            /* the token and its key (lowercased, as far as max_key bytes, zero-padded
             * to 16) in one pass */
            const Py_ssize_t start = i;
            size_t written = 0;
            memset(key, 0, 16);
            for (unsigned char c; i < n && (c = LOWER[p[i]]) != 0; i++) {
                if (written < max_key)
                    key[written++] = c;
            }
            tokens++;
            const size_t m = (size_t)(i - start);
            if (m > max_key)
                continue;
            if (add_padded_key(self, key, m, found) < 0) {
                status = -1;
                break;
            }
        }
    }
    else {
        while (i < n && tokens < self->max_tokens) {
            Py_ssize_t start;
            size_t written = 0;
            int plain = 1;
            PER_KIND(kind, FEATURE_TOKEN);
            if (start == n)
                break;
            tokens++;
            const Py_ssize_t m = i - start;
            if (plain) { /* ASCII: its key is written already (see FEATURE_TOKEN) */
                if ((size_t)m <= max_key && add_padded_key(self, key, (size_t)m, found) < 0) {
                    status = -1;
                    break;
                }
                continue;
            }
            status = token_features(self, text, start, i, 0, key, cp, found);
            if (status != 0)
                break;
        }
    }
    if (status == 0)
        status = corrected_features(self, corrected, key, found);
    if (key != key_small)
        PyMem_Free(key);
    return status;
}

/* feature_token() of a token that is not all ASCII, or whose key the scan did not write
 * whole: read here from the text (as feature_ids() reads each token). */
static int
feature_token_slow(FeatureScan *fs, PyObject *text, Py_ssize_t start, Py_ssize_t end,
                   int ascii)
{
    fs->tokens++;
    const int status = token_features(fs->table, text, start, end, ascii, fs->key, fs->cp,
                                      &fs->found);
    if (status == 1)
        fs->status = 1;
    return status < 0 ? -1 : 0;
}

/* The ids fold() found as bytes (native uint32 each), or None when a token read holds
 * U+03A3. */
static PyObject *
feature_scan_result(const FeatureScan *fs)
{
    if (fs->status != 0)
        Py_RETURN_NONE;
    return PyBytes_FromStringAndSize((const char *)fs->found.ids,
                                     (Py_ssize_t)((size_t)fs->found.count * sizeof(uint32_t)));
}

/* Set up `fs` (which must not move until feature_scan_free()) for `table`, a
 * FeatureTable the caller holds: 0, -1 with an exception set. */
static int
feature_scan_init(FeatureScan *fs, PyObject *table)
{
    fs->table = (const FeatureTable *)table;
    fs->tokens = 0;
    fs->status = 0;
    fs->key = feature_key(fs->table, fs->key_small, sizeof(fs->key_small));
    if (fs->key == NULL)
        return -1;
    if (ids_init(&fs->found, fs->table->count) < 0) {
        if (fs->key != fs->key_small)
            PyMem_Free(fs->key);
        return -1;
    }
    return 0;
}

static void
feature_scan_free(FeatureScan *fs)
{
    ids_free(&fs->found);
    if (fs->key != fs->key_small)
        PyMem_Free(fs->key);
}

static int
feature_args(PyObject *const *args, Py_ssize_t nargs, const char *name)
{
    if (nargs != 2 || !PyUnicode_Check(args[0])) {
        PyErr_Format(PyExc_TypeError, "%s() takes a str and an iterable of str", name);
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(FeatureTable_sums_doc,
"sums(text, corrected, /) -> tuple[int, ...] | None\n--\n\n"
"How many known features ``tokenize(text)`` (its first max_tokens tokens, with the\n"
"character pairs of its tokens of scripts written without spaces) and the\n"
"``corrected`` words hold, each counted once, then the sum of their weights for each\n"
"label; ``None`` if a token read holds U+03A3 (Python decides then).");

/* The sum of the weights of the ids `found` holds, for each label, into `sums` (room for
 * the table's lanes). */
static void
lane_sums(const FeatureTable *self, const IdList *found, int64_t *sums)
{
    const Py_ssize_t lanes = self->lanes;
    memset(sums, 0, (size_t)lanes * sizeof(int64_t));
    for (Py_ssize_t j = 0; j < found->count; j++) {
        const int32_t *w = self->weights + (size_t)found->ids[j] * (size_t)lanes;
        for (Py_ssize_t l = 0; l < lanes; l++)
            sums[l] += w[l];
    }
}

/* (how many ids `found` holds, then the sum of their weights for each label) */
static PyObject *
sums_tuple(const FeatureTable *self, const IdList *found)
{
    PyObject *out = NULL;
    const Py_ssize_t lanes = self->lanes;
    int64_t small_sums[16];
    int64_t *sums = lanes <= 16 ? small_sums : PyMem_Calloc((size_t)lanes, sizeof(int64_t));
    if (sums == NULL)
        return PyErr_NoMemory();
    lane_sums(self, found, sums);
    out = PyTuple_New(lanes + 1);
    if (out != NULL) {
        for (Py_ssize_t l = 0; l <= lanes; l++) {
            PyObject *v =
                l == 0 ? PyLong_FromSsize_t(found->count) : PyLong_FromLongLong(sums[l - 1]);
            if (v == NULL) {
                Py_CLEAR(out);
                break;
            }
            PyTuple_SET_ITEM(out, l, v);
        }
    }
    if (sums != small_sums)
        PyMem_Free(sums);
    return out;
}

static PyObject *
FeatureTable_sums(FeatureTable *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (feature_args(args, nargs, "sums") < 0)
        return NULL;
    IdList found;
    if (ids_init(&found, self->count) < 0)
        return NULL;
    const int status = feature_ids(self, args[0], args[1], &found);
    PyObject *out = NULL;
    if (status == 1) {
        out = Py_None;
        Py_INCREF(out);
    }
    else if (status == 0) {
        out = sums_tuple(self, &found);
    }
    ids_free(&found);
    return out;
}

PyDoc_STRVAR(FeatureTable_sums_of_doc,
"sums_of(ids, corrected, /) -> tuple[int, ...]\n--\n\n"
"sums(text, corrected) given ``ids``, the ids of the known features of the text's\n"
"tokens that TokenCodes.fold(text, ..., table) gave (bytes: native 32-bit ids, each\n"
"below len(table)); ValueError if they are not such ids.");

/* Into `found` (initialised for the table): the ids of `ids` (bytes, checked to be ids
 * of this table) and of the `corrected` words' features: 0, -1 with an exception set
 * (`name`: the method, for the messages). */
static int
ids_and_corrected(const FeatureTable *self, PyObject *ids, PyObject *corrected, IdList *found,
                  const char *name)
{
    const Py_ssize_t size = PyBytes_GET_SIZE(ids);
    if (size % (Py_ssize_t)sizeof(uint32_t) != 0) {
        PyErr_Format(PyExc_ValueError, "%s() ids must be 32-bit ids", name);
        return -1;
    }
    const unsigned char *raw = (const unsigned char *)PyBytes_AS_STRING(ids);
    for (Py_ssize_t at = 0; at < size; at += (Py_ssize_t)sizeof(uint32_t)) {
        uint32_t id;
        memcpy(&id, raw + at, sizeof(id));
        if ((Py_ssize_t)id >= self->count) {
            PyErr_Format(PyExc_ValueError, "%s() ids must be ids of this table", name);
            return -1;
        }
        if (ids_add(found, (Py_ssize_t)id) < 0)
            return -1;
    }
    unsigned char key_small[256];
    unsigned char *key = feature_key(self, key_small, sizeof(key_small));
    if (key == NULL)
        return -1;
    const int status = corrected_features(self, corrected, key, found);
    if (key != key_small)
        PyMem_Free(key);
    return status;
}

static PyObject *
FeatureTable_sums_of(FeatureTable *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyBytes_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "sums_of() takes bytes and an iterable of str");
        return NULL;
    }
    IdList found;
    if (ids_init(&found, self->count) < 0)
        return NULL;
    PyObject *out = NULL;
    if (ids_and_corrected(self, args[0], args[1], &found, "sums_of") == 0)
        out = sums_tuple(self, &found);
    ids_free(&found);
    return out;
}

PyDoc_STRVAR(FeatureTable_top_of_doc,
"top_of(ids, corrected, bias, scale, /) -> tuple[int, float] | None\n--\n\n"
"``softmax_top(bias, scale, sums_of(ids, corrected))`` in one call, the sums never\n"
"made Python ints: the same label and the same bits (``bias``: a tuple of one float\n"
"per label, ``scale`` a float); ``None`` when a score is not finite.");

static PyObject *FeatureTable_top_of(FeatureTable *self, PyObject *const *args,
                                     Py_ssize_t nargs);

PyDoc_STRVAR(FeatureTable_known_doc,
"known(text, corrected, /) -> frozenset[str] | None\n--\n\n"
"The known features sums() counts (``None`` when it gives ``None``).");

static PyObject *
FeatureTable_known(FeatureTable *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (feature_args(args, nargs, "known") < 0)
        return NULL;
    IdList found;
    if (ids_init(&found, self->count) < 0)
        return NULL;
    const int status = feature_ids(self, args[0], args[1], &found);
    PyObject *out = NULL;
    if (status == 1) {
        out = Py_None;
        Py_INCREF(out);
    }
    else if (status == 0) {
        out = PyFrozenSet_New(NULL);
        for (Py_ssize_t j = 0; out != NULL && j < found.count; j++) {
            if (PySet_Add(out, PyTuple_GET_ITEM(self->features, found.ids[j])) < 0)
                Py_CLEAR(out);
        }
    }
    ids_free(&found);
    return out;
}

static Py_ssize_t
FeatureTable_len(FeatureTable *self)
{
    return self->count;
}

static PyMethodDef FeatureTable_methods[] = {
    {"sums", (PyCFunction)(void (*)(void))FeatureTable_sums, METH_FASTCALL, FeatureTable_sums_doc},
    {"sums_of", (PyCFunction)(void (*)(void))FeatureTable_sums_of, METH_FASTCALL,
     FeatureTable_sums_of_doc},
    {"top_of", (PyCFunction)(void (*)(void))FeatureTable_top_of, METH_FASTCALL,
     FeatureTable_top_of_doc},
    {"known", (PyCFunction)(void (*)(void))FeatureTable_known, METH_FASTCALL,
     FeatureTable_known_doc},
    {NULL, NULL, 0, NULL},
};

PyDoc_STRVAR(FeatureTable_doc,
"FeatureTable(weights, lanes, max_tokens)\n--\n\n"
"A text model's features (``weights``: feature -> one integer per label, ``lanes``\n"
"labels), summed over a prompt's in one pass (see sums()).");

static PyType_Slot FeatureTable_slots[] = {
    {Py_tp_dealloc, FeatureTable_dealloc},
    {Py_sq_length, FeatureTable_len},
    {Py_tp_doc, (void *)FeatureTable_doc},
    {Py_tp_methods, FeatureTable_methods},
    {Py_tp_new, FeatureTable_new},
    {0, NULL},
};

static PyType_Spec FeatureTable_spec = {
    .name = SMISTA_SPEEDUPS_NAME ".FeatureTable",
    .basicsize = sizeof(FeatureTable),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = FeatureTable_slots,
};

/* -- module functions -------------------------------------------------------------- */

PyDoc_STRVAR(hash_token_doc,
"hash_token(token, /) -> int\n--\n\n"
"The table's keyed hash of ``token``'s key (differs between processes).");

static PyObject *
hash_token(PyObject *Py_UNUSED(module), PyObject *token)
{
    if (!PyUnicode_Check(token)) {
        PyErr_SetString(PyExc_TypeError, "hash_token() token must be str");
        return NULL;
    }
    unsigned char small[256];
    size_t len;
    unsigned char *key = key_of(token, &len, small, sizeof(small));
    if (key == NULL)
        return NULL;
    uint32_t h = key_hash(key, len);
    if (key != small)
        PyMem_Free(key);
    return PyLong_FromUnsignedLong(h);
}

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
        int alnum = p[i] < 128 && LOWER[p[i]] != 0;
        count += alnum & !inside;
        inside = alnum;
    }
    return PyLong_FromSsize_t(count);
}

PyDoc_STRVAR(tokens_doc,
"tokens(text, /) -> list[str] | None\n--\n\n"
"The tokenizer's tokens of ``text``: its runs of alphanumeric characters\n"
"(Rust's char::is_alphanumeric, from the generated table), each lowercased as\n"
"Rust lowercases; ``None`` if ``text`` holds U+03A3, whose lowercase depends on\n"
"its neighbours (Python decides then).");

static PyObject *
tokens(PyObject *Py_UNUSED(module), PyObject *text)
{
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "tokens() text must be str");
        return NULL;
    }
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    uint32_t small[128];
    uint32_t *buf = small;
    Py_ssize_t cap = (Py_ssize_t)(sizeof(small) / sizeof(small[0]));
    Py_ssize_t i = 0;
    while (i < n) {
        if (!is_token_char(PyUnicode_READ(kind, data, i))) {
            i++;
            continue;
        }
        const Py_ssize_t start = i;
        while (i < n && is_token_char(PyUnicode_READ(kind, data, i)))
            i++;
        if (2 * (i - start) > cap) { /* each character lowercases to one or two */
            uint32_t *bigger = PyMem_Malloc((size_t)(2 * (i - start)) * sizeof(uint32_t));
            if (bigger == NULL) {
                PyErr_NoMemory();
                goto fail;
            }
            if (buf != small)
                PyMem_Free(buf);
            buf = bigger;
            cap = 2 * (i - start);
        }
        const Py_ssize_t k = lower_token(text, start, i, buf);
        if (k < 0) {
            if (buf != small)
                PyMem_Free(buf);
            Py_DECREF(out);
            Py_RETURN_NONE;
        }
        PyObject *token = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, k);
        if (token == NULL || PyList_Append(out, token) < 0) {
            Py_XDECREF(token);
            goto fail;
        }
        Py_DECREF(token);
    }
    if (buf != small)
        PyMem_Free(buf);
    return out;
fail:
    if (buf != small)
        PyMem_Free(buf);
    Py_DECREF(out);
    return NULL;
}

PyDoc_STRVAR(lower_doc_module,
"lower(text, /) -> str | None\n--\n\n"
"``text`` lowercased as Rust's str::to_lowercase (ASCII letters, and the\n"
"generated table for the others: every character with a lowercase of its own\n"
"is alphanumeric); ``None`` if it holds U+03A3 (Python decides then).");

static PyObject *
lower_text(PyObject *Py_UNUSED(module), PyObject *text)
{
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "lower() text must be str");
        return NULL;
    }
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    uint32_t *out = PyMem_Malloc(((size_t)n * 2 + 1) * sizeof(uint32_t));
    if (out == NULL)
        return PyErr_NoMemory();
    Py_ssize_t k = 0;
    for (Py_ssize_t m = 0; m < n; m++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, m);
        if (ch < 128)
            out[k++] = ch >= 'A' && ch <= 'Z' ? ch + 32 : ch;
        else if (ch == CAPITAL_SIGMA) {
            PyMem_Free(out);
            Py_RETURN_NONE;
        }
        else
            k += lower_non_ascii(ch, out + k);
    }
    PyObject *result = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out, k);
    PyMem_Free(out);
    return result;
}

/* math.fsum() of `x[0:n]`, finite numbers: CPython's msum (Shewchuk's partials, then
 * the half-even fix-up across partials), which gives the correctly rounded sum.
 * `p`: room for n partials. */
static double
fsum_finite(const double *x, Py_ssize_t n, double *p)
{
    Py_ssize_t m = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        double v = x[k];
        Py_ssize_t i = 0;
        for (Py_ssize_t j = 0; j < m; j++) {
            double y = p[j];
            if (fabs(v) < fabs(y)) {
                const double t = v;
                v = y;
                y = t;
            }
            const double hi = v + y;
            const double yr = hi - v;
            const double lo = y - yr;
            if (lo != 0.0)
                p[i++] = lo;
            v = hi;
        }
        m = i;
        if (v != 0.0)
            p[m++] = v;
    }
    double hi = 0.0, lo = 0.0;
    if (m > 0) {
        hi = p[--m];
        while (m > 0) {
            const double v = hi;
            const double y = p[--m];
            hi = v + y;
            const double yr = hi - v;
            lo = y - yr;
            if (lo != 0.0)
                break;
        }
        if (m > 0 && ((lo < 0.0 && p[m - 1] < 0.0) || (lo > 0.0 && p[m - 1] > 0.0))) {
            const double y = lo * 2.0;
            const double v = hi + y;
            const double yr = v - hi;
            if (y == yr)
                hi = v;
        }
    }
    return hi;
}

#define SMALL_LANES 32

/* softmax_top()'s arithmetic past the scores: max() (the first of the largest), libm's
 * exp of each score less it, math.fsum's sum, the divisions; the place of the first most
 * probable label, its probability in `*probability` (`exps`, `partials`: room for
 * `lanes` doubles each). */
static Py_ssize_t
softmax_pick(const double *scores, Py_ssize_t lanes, double *exps, double *partials,
             double *probability)
{
    double top = scores[0];
    for (Py_ssize_t l = 1; l < lanes; l++) {
        if (scores[l] > top)
            top = scores[l];
    }
    for (Py_ssize_t l = 0; l < lanes; l++)
        exps[l] = exp(scores[l] - top);
    const double total = fsum_finite(exps, lanes, partials);
    Py_ssize_t best = 0;
    double found = exps[0] / total;
    for (Py_ssize_t l = 1; l < lanes; l++) {
        const double p = exps[l] / total;
        if (p > found) {
            found = p;
            best = l;
        }
    }
    *probability = found;
    return best;
}

/* `p` in hundredths as Python's f"{p:.2f}" rounds it (correctly, ties to even), for p in
 * [0, 1]; -1 for any other p (NaN and -0.0 too). A reason shows a probability this way: dtoa and
 * a format string for it were a good share of a cold prompt's instruction-cache misses.
 * k = floor(fl(100 p)) leaves the answer k or k + 1 (fl is monotonic and k + 1 is
 * exact), so the exact 200 p (fma gives the product's rounding error exactly) against
 * 2k + 1 decides; it equals 2k + 1 only for 0.125, 0.375, 0.625 and 0.875. */
static int
hundredths(double p)
{
    if (!(p >= 0.0 && p <= 1.0) || signbit(p)) /* (-0.0 shows as "-0.00") */
        return -1;
    const int k = (int)(p * 100.0);
    if (k >= 100)
        return 100;
    const double mid = (double)(2 * k + 1), hi = p * 200.0, lo = fma(p, 200.0, -hi);
    const int above = hi > mid || (hi == mid && lo > 0.0);
    const int tie = hi == mid && lo == 0.0;
    return above || (tie && (k & 1)) ? k + 1 : k;
}

/* " 0.xx" for `h` hundredths (0..100), in `text` (5 characters). */
static void
hundredths_text(int h, char text[5])
{
    text[0] = ' ';
    text[1] = (char)('0' + h / 100);
    text[2] = '.';
    text[3] = (char)('0' + h / 10 % 10);
    text[4] = (char)('0' + h % 10);
}

/* "LABEL 0.xx", the model's reading as its evidence shows it (f"{label} {p:.2f}" in
 * PredictedKind and LikeliestKind) for the str `label`: a new reference, NULL on an
 * exception. Written straight into a new str of the label's kind (the ASCII tail never
 * widens it); dtoa only for a p outside [0, 1]. */
static PyObject *
shown_probability(PyObject *label, double p)
{
    const int h = hundredths(p);
    if (h < 0) {
        char *number = PyOS_double_to_string(p, 'f', 2, 0, NULL);
        if (number == NULL)
            return NULL;
        PyObject *shown = PyUnicode_FromFormat("%U %s", label, number);
        PyMem_Free(number);
        return shown;
    }
    char text[5];
    hundredths_text(h, text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(label);
    PyObject *shown = PyUnicode_New(n + 5, PyUnicode_MAX_CHAR_VALUE(label));
    if (shown == NULL)
        return NULL;
    const int kind = PyUnicode_KIND(shown);
    void *data = PyUnicode_DATA(shown);
    memcpy(data, PyUnicode_DATA(label), (size_t)n * (size_t)kind); /* (one kind: see above) */
    for (int k = 0; k < 5; k++)
        PyUnicode_WRITE(kind, data, n + k, (Py_UCS4)(unsigned char)text[k]);
    return shown;
}

PyDoc_STRVAR(shown_probability_doc,
"shown_probability(label, p, /) -> str\n--\n\n"
"``f\"{label} {p:.2f}\"`` as the walk writes a text model's reading into a reason (for\n"
"tests).");

static PyObject *
shown_probability_py(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyUnicode_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "shown_probability() takes a str and a float");
        return NULL;
    }
    const double p = PyFloat_AsDouble(args[1]);
    if (p == -1.0 && PyErr_Occurred())
        return NULL;
    return shown_probability(args[0], p);
}

PyDoc_STRVAR(softmax_top_doc,
"softmax_top(bias, scale, sums, /) -> tuple[int, float] | None\n--\n\n"
"The most probable label of a text model (its place, the first on a tie) and its\n"
"probability, given ``sums`` as FeatureTable.sums() gives them (the count of known\n"
"features, then one integer sum per label), the tuple ``bias`` (a float per label) and\n"
"``scale``: smista.core.textmodel.TextModel._softmax and _top, the same arithmetic\n"
"in the same order (``bias + sum / (scale * sqrt(count))``, libm's exp of each score\n"
"less the top one, math.fsum's correctly rounded sum, the divisions), so the same bits.\n"
"``None`` when a score is not finite (Python decides).");

static PyObject *
softmax_top(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyTuple_CheckExact(args[0]) || !PyTuple_CheckExact(args[2]) ||
        PyTuple_GET_SIZE(args[0]) < 1 ||
        PyTuple_GET_SIZE(args[2]) != PyTuple_GET_SIZE(args[0]) + 1) {
        PyErr_SetString(PyExc_TypeError,
                        "softmax_top() takes a non-empty tuple of floats, a float and a tuple "
                        "of one more int");
        return NULL;
    }
    const Py_ssize_t lanes = PyTuple_GET_SIZE(args[0]);
    const double scale = PyFloat_AsDouble(args[1]);
    if (scale == -1.0 && PyErr_Occurred())
        return NULL;
    double small[3 * SMALL_LANES];
    double *buf = small;
    if (lanes > SMALL_LANES) {
        buf = PyMem_Malloc(3 * (size_t)lanes * sizeof(double));
        if (buf == NULL)
            return PyErr_NoMemory();
    }
    double *scores = buf, *exps = buf + lanes, *partials = buf + 2 * lanes;
    PyObject *out = NULL;
    PyObject *count_obj = PyTuple_GET_ITEM(args[2], 0);
    if (!PyLong_CheckExact(count_obj)) {
        PyErr_SetString(PyExc_TypeError, "softmax_top() sums must be ints");
        goto done;
    }
    const int counted = PyObject_IsTrue(count_obj);
    double norm = 0.0;
    if (counted) { /* (math.sqrt of the int, then the product) */
        const double count = PyLong_AsDouble(count_obj);
        if (count == -1.0 && PyErr_Occurred())
            goto done;
        norm = scale * sqrt(count);
    }
    for (Py_ssize_t l = 0; l < lanes; l++) {
        PyObject *b = PyTuple_GET_ITEM(args[0], l);
        PyObject *s = PyTuple_GET_ITEM(args[2], l + 1);
        if (!PyFloat_CheckExact(b) || !PyLong_CheckExact(s)) {
            PyErr_SetString(PyExc_TypeError, "softmax_top() takes float biases and int sums");
            goto done;
        }
        scores[l] = PyFloat_AS_DOUBLE(b);
        if (counted) {
            const double sum = PyLong_AsDouble(s);
            if (sum == -1.0 && PyErr_Occurred())
                goto done;
            scores[l] = scores[l] + sum / norm;
        }
        if (!isfinite(scores[l])) { /* past the floats' range: Python decides */
            out = Py_None;
            Py_INCREF(out);
            goto done;
        }
    }
    double probability;
    const Py_ssize_t best = softmax_pick(scores, lanes, exps, partials, &probability);
    out = top_pair(best, probability);
done:
    if (buf != small)
        PyMem_Free(buf);
    return out;
}

static PyObject *
FeatureTable_top_of(FeatureTable *self, PyObject *const *args, Py_ssize_t nargs)
{
    const Py_ssize_t lanes = self->lanes;
    if (nargs != 4 || !PyBytes_Check(args[0]) || !PyTuple_CheckExact(args[2]) ||
        PyTuple_GET_SIZE(args[2]) != lanes || lanes < 1) {
        PyErr_SetString(PyExc_TypeError,
                        "top_of() takes bytes, an iterable of str, a tuple of one float per "
                        "label and a float");
        return NULL;
    }
    const double scale = PyFloat_AsDouble(args[3]);
    if (scale == -1.0 && PyErr_Occurred())
        return NULL;
    for (Py_ssize_t l = 0; l < lanes; l++) {
        if (!PyFloat_CheckExact(PyTuple_GET_ITEM(args[2], l))) {
            PyErr_SetString(PyExc_TypeError, "top_of() takes float biases");
            return NULL;
        }
    }
    IdList found;
    if (ids_init(&found, self->count) < 0)
        return NULL;
    PyObject *out = NULL;
    double small[3 * SMALL_LANES];
    int64_t small_sums[SMALL_LANES];
    double *buf = small;
    int64_t *sums = small_sums;
    if (ids_and_corrected(self, args[0], args[1], &found, "top_of") < 0)
        goto done;
    if (lanes > SMALL_LANES) {
        buf = PyMem_Malloc(3 * (size_t)lanes * sizeof(double));
        sums = PyMem_Malloc((size_t)lanes * sizeof(int64_t));
        if (buf == NULL || sums == NULL) {
            PyErr_NoMemory();
            goto done;
        }
    }
    lane_sums(self, &found, sums);
    double *scores = buf, *exps = buf + lanes, *partials = buf + 2 * lanes;
    /* softmax_top()'s scores, from the same values: an int64 sum converts to the double
     * PyLong_AsDouble gives its int (both round to nearest, ties to even) */
    const int counted = found.count != 0;
    const double norm = counted ? scale * sqrt((double)found.count) : 0.0;
    for (Py_ssize_t l = 0; l < lanes; l++) {
        scores[l] = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(args[2], l));
        if (counted)
            scores[l] = scores[l] + (double)sums[l] / norm;
        if (!isfinite(scores[l])) {
            out = Py_None;
            Py_INCREF(out);
            goto done;
        }
    }
    double probability;
    const Py_ssize_t best = softmax_pick(scores, lanes, exps, partials, &probability);
    out = top_pair(best, probability);
done:
    if (buf != small)
        PyMem_Free(buf);
    if (sums != small_sums)
        PyMem_Free(sums);
    ids_free(&found);
    return out;
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

static int
is_trailing(Py_UCS4 ch)
{
    switch (ch) {
    case '?': case '!': case '.': case ',': case ';': case ':': case ')': case ']':
    case '}': case '"': case '\'': case 0x2019: case 0x201d: case 0xff1f: case 0xff01:
    case 0x3002:
        return 1;
    default:
        return 0;
    }
}

/* str.isalnum() of `ch`: ASCII from LOWER (non-zero for a letter or digit: no call into
 * the Unicode database for the common characters), the rest as Python reads it. */
#define CS_ALNUM(ch) ((ch) < 128 ? LOWER[(ch)] != 0 : Py_UNICODE_ISALNUM(ch))
#define CS_WORD(ch) (CS_ALNUM(ch) || (ch) == '_')

/* The ``(start, end)`` spans of the whitespace-free runs that look like code (a
 * slash or backslash next to a word character, a dot between word characters,
 * an underscore between letters or digits, a lower-to-upper case change), each
 * without the sentence punctuation that ends it: exactly
 * ``smista.core.conditions.view._code_spans`` (str.isalnum / str.isspace). In a
 * growable buffer of pairs; the number of spans, or -1 with MemoryError set. */
/* How a character may start a code span: 1 a trigger ('/', '\\', '.', '_'), 2 an
 * uppercase letter (the lowercase one before it is a trigger). Uppercase letters
 * are rare in prose, so the lowercase ones cost no look ahead. */
static const unsigned char SPAN_START[256] = {
    ['/'] = 1, ['\\'] = 1, ['.'] = 1, ['_'] = 1,
    ['A'] = 2, ['B'] = 2, ['C'] = 2, ['D'] = 2, ['E'] = 2, ['F'] = 2, ['G'] = 2,
    ['H'] = 2, ['I'] = 2, ['J'] = 2, ['K'] = 2, ['L'] = 2, ['M'] = 2, ['N'] = 2,
    ['O'] = 2, ['P'] = 2, ['Q'] = 2, ['R'] = 2, ['S'] = 2, ['T'] = 2, ['U'] = 2,
    ['V'] = 2, ['W'] = 2, ['X'] = 2, ['Y'] = 2, ['Z'] = 2,
};

/* Skip, in text of code unit `T`, what find_code_spans() passes over at once: no
 * trigger character, no lower-to-upper change. Stops at the first trigger, or at
 * the lowercase letter before an uppercase one (i == n: none left). The common
 * character (role 0) costs one table read and a branch. */
#define SPAN_SKIP(T)                                                                    \
    do {                                                                                \
        const T *d_ = (const T *)data;                                                  \
        const Py_ssize_t from_ = i;                                                     \
        for (;;) {                                                                      \
            while (i < n && (d_[i] >= 128 || SPAN_START[d_[i]] == 0))                   \
                i++;                                                                    \
            if (i >= n || SPAN_START[d_[i]] == 1)                                       \
                break;                                                                  \
            if (i > from_ && d_[i - 1] >= 'a' && d_[i - 1] <= 'z') {                    \
                i--; /* the lowercase letter before it is the trigger */                \
                break;                                                                  \
            }                                                                           \
            i++; /* an uppercase letter after no lowercase one */                       \
        }                                                                               \
    } while (0)

/* Widen [start, end) in text of code unit `T` to its whitespace-free run. */
#define SPAN_RUN(T)                                                                     \
    do {                                                                                \
        const T *d_ = (const T *)data;                                                  \
        while (start > 0 && !Py_UNICODE_ISSPACE(d_[start - 1]))                         \
            start--;                                                                    \
        while (end < n && !Py_UNICODE_ISSPACE(d_[end]))                                 \
            end++;                                                                      \
    } while (0)

/* A one-byte text's code runs are found in one pass over its characters, each read
 * once as one of eight kinds (SPAN_KIND, from str.isspace / str.isalnum): a run of
 * characters other than whitespace holds a code trigger exactly when some three
 * consecutive kinds (whitespace standing for the text's ends) make one, as
 * SPAN_FIRE says: a slash or backslash next to a word character, a dot between two,
 * an underscore between letters or digits, an ASCII lowercase letter before an
 * ASCII uppercase one. Filled by span_tables_init(), once per process (init_process()). */
enum { SK_SPACE, SK_LOWER, SK_UPPER, SK_ALNUM, SK_UNDER, SK_SLASH, SK_DOT, SK_OTHER };
static unsigned char SPAN_KIND[256];
static unsigned char SPAN_FIRE[512]; /* kinds (before, trigger, after) -> 1 */

static void
span_tables_init(void)
{
    for (int c = 0; c < 256; c++) {
        unsigned char k;
        if (Py_UNICODE_ISSPACE((Py_UCS4)c))
            k = SK_SPACE;
        else if (c >= 'a' && c <= 'z')
            k = SK_LOWER;
        else if (c >= 'A' && c <= 'Z')
            k = SK_UPPER;
        else if (c == '_')
            k = SK_UNDER;
        else if (c == '/' || c == '\\')
            k = SK_SLASH;
        else if (c == '.')
            k = SK_DOT;
        else if (Py_UNICODE_ISALNUM((Py_UCS4)c))
            k = SK_ALNUM;
        else
            k = SK_OTHER;
        SPAN_KIND[c] = k;
    }
    for (int a = 0; a < 8; a++) {
        const int alnum_a = a == SK_LOWER || a == SK_UPPER || a == SK_ALNUM;
        const int word_a = alnum_a || a == SK_UNDER;
        for (int b = 0; b < 8; b++) {
            for (int c = 0; c < 8; c++) {
                const int alnum_c = c == SK_LOWER || c == SK_UPPER || c == SK_ALNUM;
                const int word_c = alnum_c || c == SK_UNDER;
                int fire = 0;
                if (b == SK_LOWER && c == SK_UPPER)
                    fire = 1;
                else if (b == SK_SLASH)
                    fire = word_a || word_c;
                else if (b == SK_DOT)
                    fire = word_a && word_c;
                else if (b == SK_UNDER)
                    fire = alnum_a && alnum_c;
                SPAN_FIRE[a << 6 | b << 3 | c] = (unsigned char)fire;
            }
        }
    }
}

/* Record the span [start, end) less the sentence punctuation ending it. */
static int
push_span(const Py_UCS1 *d, Py_ssize_t start, Py_ssize_t end, Py_ssize_t **buf,
          Py_ssize_t *cap, Py_ssize_t *count)
{
    while (end > start + 1 && is_trailing(d[end - 1]))
        end--;
    if (2 * (*count + 1) > *cap) {
        Py_ssize_t grown = *cap ? 2 * *cap : 64;
        Py_ssize_t *more = PyMem_Realloc(*buf, (size_t)grown * sizeof(Py_ssize_t));
        if (more == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        *buf = more;
        *cap = grown;
    }
    (*buf)[2 * *count] = start;
    (*buf)[2 * *count + 1] = end;
    (*count)++;
    return 0;
}

/* The index of the lowest set bit of `x` (not 0). */
static inline int
lowest_bit(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(x);
#else
    int k = 0;
    while (!(x & 1)) {
        x >>= 1;
        k++;
    }
    return k;
#endif
}

/* The eight bytes at `p` as one word, the first in the lowest byte whatever the
 * machine's byte order (so a set bit's index / 8 is its byte's offset); compilers make
 * one load of it on a little-endian machine. */
static inline uint64_t
load_le64(const unsigned char *p)
{
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
           (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
           (uint64_t)p[7] << 56;
}

#define BYTES_ONES 0x0101010101010101ULL
#define BYTES_HIGHS 0x8080808080808080ULL

/* The high bit of each of the eight bytes of `x` that may be where a code trigger is
 * read: '.' or '/' (0x2e-0x2f), or 0x41-0x5f (the uppercase letters, '\\', '_', and
 * three that never are); none at a byte past ASCII. Each byte's sums stay within it. */
static inline uint64_t
span_candidates8(uint64_t x)
{
    const uint64_t y = x & ~BYTES_HIGHS;
    const uint64_t dots = (y + (0x80 - 0x2e) * BYTES_ONES) & ~(y + (0x80 - 0x30) * BYTES_ONES);
    const uint64_t upper = (y + (0x80 - 0x41) * BYTES_ONES) & ~(y + (0x80 - 0x60) * BYTES_ONES);
    return (dots | upper) & ~x & BYTES_HIGHS;
}

/* Whether the character at `p` of a one-byte text makes a code trigger: a slash,
 * backslash, dot or underscore that SPAN_FIRE says is one between its neighbours, or
 * an uppercase ASCII letter after a lowercase one (the trigger is then that one). */
static inline int
span_fires_at(const Py_UCS1 *d, Py_ssize_t n, Py_ssize_t p)
{
    const unsigned k = SPAN_KIND[d[p]];
    const unsigned before = p > 0 ? SPAN_KIND[d[p - 1]] : SK_SPACE;
    if (k == SK_UPPER)
        return before == SK_LOWER;
    const unsigned after = p + 1 < n ? SPAN_KIND[d[p + 1]] : SK_SPACE;
    return SPAN_FIRE[before << 6 | k << 3 | after];
}

/* The whitespace-free run around position `p` of a one-byte text, recorded as a span;
 * where it ends (the whitespace after it, or n), or -1 with MemoryError set. */
static Py_ssize_t
span_around(const Py_UCS1 *d, Py_ssize_t n, Py_ssize_t p, Py_ssize_t **buf, Py_ssize_t *cap,
            Py_ssize_t *count)
{
    Py_ssize_t start = p, end = p + 1;
    while (start > 0 && SPAN_KIND[d[start - 1]] != SK_SPACE)
        start--;
    while (end < n && SPAN_KIND[d[end]] != SK_SPACE)
        end++;
    return push_span(d, start, end, buf, cap, count) < 0 ? -1 : end;
}

/* find_code_spans() of a one-byte text: eight characters at a time, only those that
 * may make a trigger are looked at (and their neighbours); a run that holds one is a
 * span, and the search goes on after it. */
static Py_ssize_t
find_code_spans1(const Py_UCS1 *d, Py_ssize_t n, Py_ssize_t **buf, Py_ssize_t *cap)
{
    Py_ssize_t count = 0;
    Py_ssize_t i = 0;
    while (i < n) {
        uint64_t bits;
        Py_ssize_t next;
        if (i + 8 <= n) {
            bits = span_candidates8(load_le64(d + i));
            next = i + 8;
        }
        else { /* the last few: each one that may make a trigger */
            bits = 0;
            for (Py_ssize_t m = i; m < n; m++) {
                const unsigned k = SPAN_KIND[d[m]];
                if (k == SK_UPPER || k == SK_UNDER || k == SK_SLASH || k == SK_DOT)
                    bits |= 0x80ULL << (8 * (m - i));
            }
            next = n;
        }
        while (bits) {
            const Py_ssize_t p = i + (lowest_bit(bits) >> 3);
            bits &= bits - 1;
            if (span_fires_at(d, n, p)) {
                next = span_around(d, n, p, buf, cap, &count);
                if (next < 0)
                    return -1;
                break;
            }
        }
        i = next;
    }
    return count;
}

static Py_ssize_t
find_code_spans(int kind, const void *data, Py_ssize_t n, Py_ssize_t **buf, Py_ssize_t *cap)
{
    if (kind == PyUnicode_1BYTE_KIND)
        return find_code_spans1((const Py_UCS1 *)data, n, buf, cap);
    /* two- and four-byte texts, character by character */
    Py_ssize_t count = 0;
    Py_ssize_t i = 0;
    while (i < n) {
        /* without the per-character kind switch, to the next character the branches
         * below may act on */
        if (kind == PyUnicode_2BYTE_KIND)
            SPAN_SKIP(Py_UCS2);
        else
            SPAN_SKIP(Py_UCS4);
        if (i >= n)
            break;
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        int ok;
        Py_ssize_t after = i + 1;
        if (ch == '/' || ch == '\\') {
            ok = (i > 0 && CS_WORD(PyUnicode_READ(kind, data, i - 1)))
                 || (i + 1 < n && CS_WORD(PyUnicode_READ(kind, data, i + 1)));
        }
        else if (ch == '.') {
            ok = i > 0 && i < n - 1 && CS_WORD(PyUnicode_READ(kind, data, i - 1))
                 && CS_WORD(PyUnicode_READ(kind, data, i + 1));
        }
        else if (ch == '_') {
            ok = i > 0 && i < n - 1 && CS_ALNUM(PyUnicode_READ(kind, data, i - 1))
                 && CS_ALNUM(PyUnicode_READ(kind, data, i + 1));
        }
        else if (ch >= 'a' && ch <= 'z' && i + 1 < n) {
            Py_UCS4 next = PyUnicode_READ(kind, data, i + 1);
            ok = next >= 'A' && next <= 'Z';
            after = i + 2;
        }
        else {
            i++;
            continue;
        }
        if (!ok) {
            i++;
            continue;
        }
        Py_ssize_t start = i, end = after;
        PER_KIND(kind, SPAN_RUN);
        i = end; /* triggers inside this run are skipped */
        while (end > start + 1 && is_trailing(PyUnicode_READ(kind, data, end - 1)))
            end--;
        if (2 * (count + 1) > *cap) {
            Py_ssize_t grown = *cap ? 2 * *cap : 64;
            Py_ssize_t *more = PyMem_Realloc(*buf, (size_t)grown * sizeof(Py_ssize_t));
            if (more == NULL) {
                PyErr_NoMemory();
                return -1;
            }
            *buf = more;
            *cap = grown;
        }
        (*buf)[2 * count] = start;
        (*buf)[2 * count + 1] = end;
        count++;
    }
    return count;
}

PyDoc_STRVAR(blank_code_spans_doc,
"blank_code_spans(text, /) -> str\n--\n\n"
"``text`` with each whitespace-free run that looks like code (a slash or\n"
"backslash next to a word character, a dot between word characters, an\n"
"underscore between letters or digits, a lower-to-upper case change), less the\n"
"sentence punctuation ending it, replaced by one space (``text`` itself when it\n"
"has none). Exactly\n"
"``smista.core.conditions.view._blank_code_spans``.");

static PyObject *
blank_code_spans(PyObject *Py_UNUSED(module), PyObject *text)
{
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "blank_code_spans() text must be str");
        return NULL;
    }
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    Py_ssize_t *buf = NULL, cap = 0;
    Py_ssize_t count = find_code_spans(kind, data, n, &buf, &cap);
    if (count < 0)
        return NULL;
    if (count == 0) {
        PyMem_Free(buf);
        return Py_NewRef(text);
    }
    /* The kept characters' widest one (a str must be in its narrowest kind). */
    Py_ssize_t size = n;
    const int ascii = PyUnicode_IS_ASCII(text);
    Py_UCS4 widest = ascii ? 127 : ' ';
    Py_ssize_t last = 0;
    for (Py_ssize_t k = 0; k <= count; k++) {
        Py_ssize_t stop = k < count ? buf[2 * k] : n;
        if (!ascii) {
            for (Py_ssize_t j = last; j < stop; j++) {
                Py_UCS4 ch = PyUnicode_READ(kind, data, j);
                if (ch > widest)
                    widest = ch;
            }
        }
        if (k < count) {
            size -= buf[2 * k + 1] - buf[2 * k] - 1;
            last = buf[2 * k + 1];
        }
    }
    PyObject *out = PyUnicode_New(size, widest);
    if (out == NULL) {
        PyMem_Free(buf);
        return NULL;
    }
    /* Character by character: PyUnicode_CopyCharacters checks a Latin-1 source
     * against an ASCII target from the source's start, not from the offset. */
    const int okind = PyUnicode_KIND(out);
    void *odata = PyUnicode_DATA(out);
    Py_ssize_t at = 0;
    last = 0;
    for (Py_ssize_t k = 0; k <= count; k++) {
        Py_ssize_t stop = k < count ? buf[2 * k] : n;
        if (okind == kind) {
            memcpy((char *)odata + at * kind, (const char *)data + last * kind,
                   (size_t)((stop - last) * kind));
            at += stop - last;
        }
        else {
            for (Py_ssize_t j = last; j < stop; j++)
                PyUnicode_WRITE(okind, odata, at++, PyUnicode_READ(kind, data, j));
        }
        if (k < count) {
            PyUnicode_WRITE(okind, odata, at, ' ');
            at++;
            last = buf[2 * k + 1];
        }
    }
    PyMem_Free(buf);
    return out;
}

PyDoc_STRVAR(non_ascii_doc,
"non_ascii(text, /) -> str\n--\n\n"
"The characters of ``text`` past ASCII, in order (``\"\"`` for an ASCII text).\n"
"Exactly ``\"\".join(re.findall(r\"[^\\x00-\\x7f]+\", text))``.");

static PyObject *
non_ascii(PyObject *Py_UNUSED(module), PyObject *text)
{
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "non_ascii() text must be str");
        return NULL;
    }
    if (PyUnicode_IS_ASCII(text))
        return PyUnicode_New(0, 0);
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    Py_ssize_t size = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        size += PyUnicode_READ(kind, data, i) > 127;
    /* The text's widest character is past ASCII, so it is among those kept. */
    PyObject *out = PyUnicode_New(size, PyUnicode_MAX_CHAR_VALUE(text));
    if (out == NULL)
        return NULL;
    const int okind = PyUnicode_KIND(out);
    void *odata = PyUnicode_DATA(out);
    Py_ssize_t at = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if (ch > 127)
            PyUnicode_WRITE(okind, odata, at++, ch);
    }
    return out;
}

PyDoc_STRVAR(code_signs_doc,
"code_signs(text, /) -> int\n--\n\n"
"What ``visible_text`` must look for in ``text``, found in one pass: bit 1 when it\n"
"holds a backtick or ``~~~``, bit 2 when it holds ``://``, ``www.`` or ``WWW.``.\n"
"Exactly ``('`' in text or '~~~' in text) | 2 * ('://' in text or 'www.' in text or\n"
"'WWW.' in text)``.");

/* The characters a sign starts with: a byte table, so a text's other characters
 * cost one load and one test each. */
static const unsigned char SIGN_START[128] = {
    ['`'] = 1, ['~'] = 1, [':'] = 1, ['w'] = 1, ['W'] = 1,
};

#define CODE_SIGNS_SCAN(T)                                                              \
    do {                                                                                \
        const T *d = (const T *)data;                                                   \
        for (Py_ssize_t i = 0; i < n; i++) {                                            \
            const Py_UCS4 c = d[i];                                                     \
            if (c >= 128 || !SIGN_START[c])                                             \
                continue;                                                               \
            if (c == '`')                                                               \
                signs |= 1;                                                             \
            else if (c == '~' && i + 2 < n && d[i + 1] == '~' && d[i + 2] == '~')       \
                signs |= 1;                                                             \
            else if (c == ':' && i + 2 < n && d[i + 1] == '/' && d[i + 2] == '/')       \
                signs |= 2;                                                             \
            else if ((c == 'w' || c == 'W') && i + 3 < n && d[i + 1] == c &&             \
                     d[i + 2] == c && d[i + 3] == '.')                                  \
                signs |= 2;                                                             \
            if (signs == 3)                                                             \
                break;                                                                  \
        }                                                                               \
    } while (0)

/* Whether the `n` bytes at `d` hold the `k` bytes of `sign`. */
static int
has_sign(const char *d, Py_ssize_t n, const char *sign, Py_ssize_t k)
{
    const char *end = d + n;
    for (const char *p = d; end - p >= k; p++) {
        p = memchr(p, sign[0], (size_t)(end - p - k + 1));
        if (p == NULL)
            return 0;
        if (memcmp(p + 1, sign + 1, (size_t)(k - 1)) == 0)
            return 1;
    }
    return 0;
}

static PyObject *
code_signs(PyObject *Py_UNUSED(module), PyObject *text)
{
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "code_signs() text must be str");
        return NULL;
    }
    const void *data = PyUnicode_DATA(text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    long signs = 0;
    switch (PyUnicode_KIND(text)) {
    case PyUnicode_1BYTE_KIND: {
        /* memchr for each sign's first character (vectorized, and all are rare
         * in prose but 'w'), then a look at the few characters after it */
        const char *d = (const char *)data;
        signs = memchr(d, '`', (size_t)n) != NULL || has_sign(d, n, "~~~", 3);
        if (has_sign(d, n, "://", 3) || has_sign(d, n, "www.", 4) || has_sign(d, n, "WWW.", 4))
            signs |= 2;
        break;
    }
    case PyUnicode_2BYTE_KIND:
        CODE_SIGNS_SCAN(Py_UCS2);
        break;
    default:
        CODE_SIGNS_SCAN(Py_UCS4);
        break;
    }
    return PyLong_FromLong(signs);
}

PyDoc_STRVAR(covered_keys_doc,
"covered_keys(present, plan, /) -> frozenset\n--\n\n"
"The keys of ``plan`` (a dict: word -> tuple of ``(key, words)``) filed under a word\n"
"of ``present`` (a set or frozenset) whose words are all in ``present``. Exactly\n"
"``frozenset(key for word in plan.keys() & present for key, words in plan[word]\n"
"if present.issuperset(words))``, the phrases gate.");

static PyObject *
covered_keys(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyAnySet_Check(args[0]) || !PyDict_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "covered_keys() takes a set and a dict");
        return NULL;
    }
    PyObject *present = args[0], *plan = args[1];
    PyObject *out = PyFrozenSet_New(NULL);
    if (out == NULL)
        return NULL;
    /* Iterate the smaller side, as ``keys() & set`` does: a prompt's few present
     * words, not the plan's many anchors. */
    const int by_present = PySet_GET_SIZE(present) <= PyDict_GET_SIZE(plan);
    PyObject *iter = PyObject_GetIter(by_present ? present : plan);
    if (iter == NULL)
        goto fail;
    PyObject *word;
    while ((word = PyIter_Next(iter)) != NULL) {
        PyObject *group = NULL;
        int held = 1;
        if (by_present) {
            group = PyDict_GetItemWithError(plan, word); /* borrowed */
        } else {
            held = PySet_Contains(present, word);
            if (held > 0)
                group = PyDict_GetItemWithError(plan, word);
        }
        Py_DECREF(word);
        if (held < 0 || (group == NULL && PyErr_Occurred()))
            goto fail_iter;
        if (group == NULL)
            continue;
        if (!PyTuple_Check(group))
            goto bad_plan;
        for (Py_ssize_t g = 0; g < PyTuple_GET_SIZE(group); g++) {
            PyObject *item = PyTuple_GET_ITEM(group, g);
            if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 2 ||
                !PyTuple_Check(PyTuple_GET_ITEM(item, 1)))
                goto bad_plan;
            PyObject *words = PyTuple_GET_ITEM(item, 1);
            int all = 1;
            for (Py_ssize_t w = 0; w < PyTuple_GET_SIZE(words); w++) {
                int has = PySet_Contains(present, PyTuple_GET_ITEM(words, w));
                if (has < 0)
                    goto fail_iter;
                if (!has) {
                    all = 0;
                    break;
                }
            }
            if (all && PySet_Add(out, PyTuple_GET_ITEM(item, 0)) < 0)
                goto fail_iter;
        }
    }
    Py_DECREF(iter);
    if (PyErr_Occurred())
        goto fail;
    return out;
bad_plan:
    PyErr_SetString(PyExc_TypeError,
                    "covered_keys() plan values must be tuples of (key, tuple of words)");
fail_iter:
    Py_DECREF(iter);
fail:
    Py_DECREF(out);
    return NULL;
}

/* -- Walker ---------------------------------------------------------------------------
 *
 * The verifying path's walk over a rule set's plan, compiled (smista.core.walk builds
 * it; smista.core.engine's CompiledRules._match_view holds the Python statement of the
 * same loop, which runs without the extension). Candidates come in rank order: the
 * rules a keyword of the prompt hit (the scan's entries, best per rule), merged with the
 * keyword-less rules, each behind the gate of one of its conditions, a gate being asked
 * which of its rules may hold only when the next candidate ranks at or past its first
 * rule. Each candidate is checked for its contexts, then for each of its conditions;
 * the first that holds wins.
 *
 * A condition (or a gate) is answered here when its kind gives a native op
 * (ConditionKind.native, .native_gate: the op's name and plain arguments, stated in the
 * kind's module beside its match()); every other one calls the kind's match() or
 * present() on a PromptView, made on first need and handed the facts read here so far.
 * The facts (slash command, $-mention, question, the text model's reading, the first
 * content words, the lowered text) are read once per prompt, on first need, through the
 * same compiled tables the Python path reads (MarkerTable, FeatureTable, SubstringSet)
 * and the same Python functions where a table hands a prompt back. tests/test_walker.py
 * and the differential tests hold the two loops equal.
 *
 * A Walker is immutable once built; walk() keeps its state on the stack.
 */

enum {
    WOP_PYTHON = 0,
    WOP_QUESTION,
    WOP_MODEL,
    WOP_COMMAND,
    WOP_MENTION,
    WOP_STEMS,
    WOP_SUBSTRINGS,
    WOP_EXCLUDE_SUBSTRINGS,
    WOP_LEAD_ENDINGS,
    WOP_LEADING,
    WOP_PHRASES,
    WOP_EXCLUDE,
    WOP_COUNT
};
/* Arguments after the name, per op (borrowed from the walker's `held` tuple):
 * python (match, condition); question (flag, evidence); model (labels, sure, key);
 * command (names, key); mention (names, excepted, key); stems (stems, key);
 * substrings (entries, ascii entries, key); exclude_substrings (entries, evidence);
 * lead_endings (endings, excepted words, key); leading (plan of, condition, typo,
 * wildcard, key, the wildcard's evidence); phrases (plan of, condition, typo, key);
 * exclude (plan of, condition, evidence). For the last three, plan_of(condition) gives
 * the condition's (entries, by first word) when first needed (phrases.entry_plan, a memo
 * per condition): an entry is (text, its words), and "by first word" maps a word to the
 * positions of the entries it starts; a word may take a typo when `typo` is true and it
 * holds no Hangul or Han (phrases._typo_allowed). */
static const char *const WOP_NAMES[WOP_COUNT] = {
    "python", "question", "model", "command", "mention", "stems", "substrings",
    "exclude_substrings", "lead_endings", "leading", "phrases", "exclude",
};
static const int WOP_ARGS[WOP_COUNT] = {2, 2, 3, 2, 3, 2, 3, 2, 3, 6, 4, 3};

enum {
    WGATE_PYTHON = 0,
    WGATE_COMMAND,
    WGATE_MENTION,
    WGATE_MODEL,
    WGATE_COVERED,
    WGATE_SUBSTRINGS,
    WGATE_STEMS,
    WGATE_LEAD_ENDINGS,
    WGATE_LEADING,
    WGATE_COUNT
};
/* python (present, plan); command (keys); mention (keys); model (plan, sure);
 * covered (plan); substrings (SubstringSet); stems (keys); lead_endings (plan);
 * leading (plan). */
static const char *const WGATE_NAMES[WGATE_COUNT] = {
    "python", "command", "mention", "model", "covered",
    "substrings", "stems", "lead_endings", "leading",
};
static const int WGATE_ARGS[WGATE_COUNT] = {2, 1, 1, 2, 1, 1, 1, 1, 1};

#define WALK_PAST ((Py_ssize_t)1 << 62)  /* engine._PAST: past every rank */
#define WALK_NEVER (WALK_PAST + 1)        /* engine._NEVER: past _PAST too */
#define WALK_LEAD_WINDOW 4                 /* view._LEAD_WINDOW */
#define WALK_MIN_STEM 3                    /* endings.MIN_STEM */

#define WOP_MAX_ARGS 6
typedef struct {
    int code;
    PyObject *arg[WOP_MAX_ARGS]; /* borrowed */
} WOp;

typedef struct {
    PyObject *label, *keywords, *contexts; /* borrowed */
    Py_ssize_t nops;
    WOp *ops; /* into Walker.ops */
} WRule;

typedef struct {
    Py_ssize_t first_rank;
    WOp op;
    PyObject *by_key; /* borrowed dict: key -> tuple of plan positions */
} WGate;

/* the view's slots the facts go to (PromptView._fill names them) */
enum {
    WN_QUESTION, WN_COMMAND, WN_PREDICTION, WN_CONFIDENT, WN_CONTENT, WN_CONTENT_LIMIT,
    WN_LEAD, WN_LOWERED, WN_TOKENS, WN_LOWER, WN_ANY, WN_SLASH, WN_DOLLAR, WN_COUNT
};
static const char *const WN_TEXT[WN_COUNT] = {
    "_question", "_command", "_prediction", "_confident", "_content", "_content_limit",
    "_lead", "_lowered", "_tokens", "lower", "*", "/", "$",
};

typedef struct {
    PyObject_HEAD
    PyObject *held; /* the constructor's arguments: every borrowed pointer below is in it */
    PyObject *names[WN_COUNT];
    PyObject *empty; /* () */
    Py_ssize_t nplan;
    Py_ssize_t *plan_rank, *plan_index;
    Py_ssize_t nungated;
    Py_ssize_t *ungated;
    Py_ssize_t ngates;
    WGate *gates;
    Py_ssize_t nrules;
    WRule *rules;
    WOp *ops;
    PyTypeObject *match_type, *evidence_type, *prediction_type;
    PyObject *default_match;
    PyObject *marker_table; /* a MarkerTable, or NULL */
    PyObject *py_is_question, *py_content_tokens, *markers;
    PyObject *py_slash_command, *py_dollar_mention, *py_tokenize;
    PyObject *feature_table; /* a FeatureTable, or NULL */
    int has_model;
    PyObject *bias, *scale, *labels, *bars, *model_read;
    PyObject *view_factory, *options, *signals;
    /* match(): the verifying scan, its feature table (or NULL), the engine's resolver of
     * new tokens, visible_text, ignore_code, each rule's keywords lowered, LARGE_TEXT and
     * whether the text model reads corrected keywords; scan NULL: match() is not offered */
    PyObject *scan, *features, *resolve, *py_visible_text, *lowered_keywords;
    int ignore_code, gather_corrected;
    Py_ssize_t large_text;
} Walker;

static void
walker_free_arrays(Walker *self)
{
    PyMem_Free(self->plan_rank);
    PyMem_Free(self->plan_index);
    PyMem_Free(self->ungated);
    PyMem_Free(self->gates);
    PyMem_Free(self->rules);
    PyMem_Free(self->ops);
    self->plan_rank = self->plan_index = self->ungated = NULL;
    self->gates = NULL;
    self->rules = NULL;
    self->ops = NULL;
    self->nplan = self->nungated = self->ngates = self->nrules = 0;
}

static int
Walker_traverse(Walker *self, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(self->held);
    Py_VISIT(self->empty);
    for (int k = 0; k < WN_COUNT; k++)
        Py_VISIT(self->names[k]);
    return 0;
}

static int
Walker_clear(Walker *self)
{
    walker_free_arrays(self);
    /* (the borrowed pointers go with `held`: walk() and match() refuse a cleared walker) */
    self->default_match = NULL;
    self->scan = self->features = NULL;
    Py_CLEAR(self->held);
    Py_CLEAR(self->empty);
    for (int k = 0; k < WN_COUNT; k++)
        Py_CLEAR(self->names[k]);
    return 0;
}

static void
Walker_dealloc(Walker *self)
{
    PyObject_GC_UnTrack(self);
    (void)Walker_clear(self);
    PyTypeObject *type = Py_TYPE(self);
    type->tp_free((PyObject *)self);
    Py_DECREF(type);
}

static int
walker_bad(const char *what)
{
    PyErr_Format(PyExc_TypeError, "Walker(): %s", what);
    return -1;
}

/* A non-negative int from `obj` (-1 and an exception when it is none). */
static Py_ssize_t
walker_index(PyObject *obj, const char *what)
{
    if (!PyLong_Check(obj)) {
        walker_bad(what);
        return -1;
    }
    const Py_ssize_t v = PyLong_AsSsize_t(obj);
    if (v < 0) {
        if (!PyErr_Occurred())
            walker_bad(what);
        return -1;
    }
    return v;
}

/* Parse an op tuple (code, *args) against the table of argument counts. */
static int
walker_op(WOp *op, PyObject *spec, int count, const int *nargs, const char *what)
{
    if (!PyTuple_Check(spec) || PyTuple_GET_SIZE(spec) < 1 || !PyLong_Check(PyTuple_GET_ITEM(spec, 0)))
        return walker_bad(what);
    const long code = PyLong_AsLong(PyTuple_GET_ITEM(spec, 0));
    if (code < 0 || code >= count || PyTuple_GET_SIZE(spec) != 1 + nargs[code])
        return walker_bad(what);
    op->code = (int)code;
    for (int k = 0; k < WOP_MAX_ARGS; k++)
        op->arg[k] = k < nargs[code] ? PyTuple_GET_ITEM(spec, k + 1) : NULL;
    return 0;
}

/* Each op's arguments have the types the walk reads them as. */
static int
walker_check_op(const WOp *op, PyTypeObject *evidence_type)
{
    PyObject *const *a = op->arg;
    switch (op->code) {
    case WOP_PYTHON:
        return PyCallable_Check(a[0]) ? 0 : walker_bad("a python op takes a callable");
    case WOP_QUESTION:
        return PyBool_Check(a[0]) && Py_IS_TYPE(a[1], evidence_type)
                   ? 0 : walker_bad("a question op takes a bool and an Evidence");
    case WOP_MODEL:
        return PyAnySet_Check(a[0]) && PyBool_Check(a[1]) && PyUnicode_Check(a[2])
                   ? 0 : walker_bad("a model op takes a set, a bool and a str");
    case WOP_COMMAND:
        return PyAnySet_Check(a[0]) && PyUnicode_Check(a[1])
                   ? 0 : walker_bad("a command op takes a set and a str");
    case WOP_MENTION:
        return PyAnySet_Check(a[0]) && PyAnySet_Check(a[1]) && PyUnicode_Check(a[2])
                   ? 0 : walker_bad("a mention op takes two sets and a str");
    case WOP_LEADING:
        return PyCallable_Check(a[0]) && PyBool_Check(a[2]) && PyBool_Check(a[3]) &&
                       PyUnicode_Check(a[4]) && Py_IS_TYPE(a[5], evidence_type)
                   ? 0 : walker_bad("a leading op takes a callable, a condition, two bools, a key "
                                    "and an Evidence");
    case WOP_PHRASES:
        return PyCallable_Check(a[0]) && PyBool_Check(a[2]) && PyUnicode_Check(a[3])
                   ? 0 : walker_bad("a phrases op takes a callable, a condition, a bool and a key");
    case WOP_EXCLUDE:
        return PyCallable_Check(a[0]) && Py_IS_TYPE(a[2], evidence_type)
                   ? 0 : walker_bad("an exclude op takes a callable, a condition and an Evidence");
    case WOP_STEMS:
    case WOP_SUBSTRINGS:
    case WOP_EXCLUDE_SUBSTRINGS:
    case WOP_LEAD_ENDINGS: {
        PyObject *entries = a[0];
        if (!PyTuple_Check(entries))
            return walker_bad("an op's entries are a tuple of str");
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(entries); i++) {
            if (!PyUnicode_Check(PyTuple_GET_ITEM(entries, i)))
                return walker_bad("an op's entries are a tuple of str");
        }
        if (op->code == WOP_SUBSTRINGS) {
            if (!PyTuple_Check(a[1]))
                return walker_bad("a substrings op takes a tuple of ASCII entries");
            for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(a[1]); i++) {
                if (!PyUnicode_Check(PyTuple_GET_ITEM(a[1], i)))
                    return walker_bad("a substrings op's ASCII entries are str");
            }
            return PyUnicode_Check(a[2]) ? 0 : walker_bad("a substrings op takes a key");
        }
        if (op->code == WOP_EXCLUDE_SUBSTRINGS)
            return Py_IS_TYPE(a[1], evidence_type) ? 0 : walker_bad("an exclude op takes an Evidence");
        if (op->code == WOP_LEAD_ENDINGS) {
            for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(entries); i++) {
                if (PyUnicode_GET_LENGTH(PyTuple_GET_ITEM(entries, i)) == 0)
                    return walker_bad("a lead_endings op's endings are never empty");
            }
            return PyAnySet_Check(a[1]) && PyUnicode_Check(a[2])
                       ? 0 : walker_bad("a lead_endings op takes a set and a key");
        }
        return PyUnicode_Check(a[1]) ? 0 : walker_bad("a stems op takes a key");
    }
    }
    return walker_bad("unknown op");
}

static int
walker_check_gate(const WOp *op, PyTypeObject *substring_type)
{
    PyObject *const *a = op->arg;
    switch (op->code) {
    case WGATE_PYTHON:
        return PyCallable_Check(a[0]) ? 0 : walker_bad("a python gate takes a callable");
    case WGATE_COMMAND:
    case WGATE_MENTION:
    case WGATE_STEMS:
        return PyAnySet_Check(a[0]) ? 0 : walker_bad("a gate's keys are a set");
    case WGATE_MODEL:
        return PyDict_CheckExact(a[0]) && PyBool_Check(a[1])
                   ? 0 : walker_bad("a model gate takes a dict and a bool");
    case WGATE_COVERED:
    case WGATE_LEAD_ENDINGS:
    case WGATE_LEADING:
        return PyDict_CheckExact(a[0]) ? 0 : walker_bad("a gate's plan is a dict");
    case WGATE_SUBSTRINGS:
        return Py_IS_TYPE(a[0], substring_type) ? 0 : walker_bad("a substrings gate takes a SubstringSet");
    }
    return walker_bad("unknown gate");
}

PyDoc_STRVAR(Walker_doc,
"Walker(plan, ungated, gates, rules, types, default, markers, heads, model, view, scan)\n--\n\n"
"A rule set's plan compiled for walk() (smista.core.walk builds the arguments):\n"
"``plan`` (rank, rule) per keyword-less rule in rank order; ``ungated`` the plan\n"
"positions behind no gate; ``gates`` (first rank, gate op, key -> positions) in rank\n"
"order; ``rules`` (label, keywords, contexts, ops) per rule; ``types`` (RuleMatch,\n"
"Evidence, Prediction); ``default`` the RuleMatch when no rule holds; ``markers``\n"
"(MarkerTable or None, is_question, content_tokens, Markers); ``heads``\n"
"(slash_command, dollar_mention, tokenize); ``model`` None or (FeatureTable or None, bias,\n"
"scale, labels, bar per label, read); ``view`` (factory, options, signals);\n"
"``scan`` None or (TokenCodes, FeatureTable or None, resolve, visible_text,\n"
"ignore_code, each rule's keywords lowered, LARGE_TEXT, gather corrected) for match().");

static PyObject *
Walker_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    if (kwds != NULL && PyDict_GET_SIZE(kwds) != 0) {
        PyErr_SetString(PyExc_TypeError, "Walker() takes positional arguments only");
        return NULL;
    }
    if (PyTuple_GET_SIZE(args) != 11) {
        PyErr_SetString(PyExc_TypeError, "Walker() takes 11 arguments");
        return NULL;
    }
    PyObject *module = PyType_GetModuleByDef(type, &speedups_module);
    if (module == NULL)
        return NULL;
    SpeedupsState *state = speedups_state(module);
    Walker *self = (Walker *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->held = Py_NewRef(args);
    self->empty = PyTuple_New(0);
    if (self->empty == NULL)
        goto fail;
    for (int k = 0; k < WN_COUNT; k++) {
        self->names[k] = PyUnicode_InternFromString(WN_TEXT[k]);
        if (self->names[k] == NULL)
            goto fail;
    }
    PyObject *plan = PyTuple_GET_ITEM(args, 0), *ungated = PyTuple_GET_ITEM(args, 1);
    PyObject *gates = PyTuple_GET_ITEM(args, 2), *rules = PyTuple_GET_ITEM(args, 3);
    PyObject *types = PyTuple_GET_ITEM(args, 4), *deflt = PyTuple_GET_ITEM(args, 5);
    PyObject *markers = PyTuple_GET_ITEM(args, 6), *heads = PyTuple_GET_ITEM(args, 7);
    PyObject *model = PyTuple_GET_ITEM(args, 8), *view = PyTuple_GET_ITEM(args, 9);
    if (!PyTuple_Check(plan) || !PyTuple_Check(ungated) || !PyTuple_Check(gates) ||
        !PyTuple_Check(rules) || !PyTuple_Check(types) || PyTuple_GET_SIZE(types) != 3 ||
        !PyTuple_Check(markers) || PyTuple_GET_SIZE(markers) != 4 || !PyTuple_Check(heads) ||
        PyTuple_GET_SIZE(heads) != 3 || !PyTuple_Check(view) || PyTuple_GET_SIZE(view) != 3) {
        walker_bad("arguments of the wrong shape");
        goto fail;
    }
    for (int k = 0; k < 3; k++) {
        PyObject *t = PyTuple_GET_ITEM(types, k);
        if (!PyType_Check(t) || !PyType_IsSubtype((PyTypeObject *)t, &PyTuple_Type)) {
            walker_bad("types are tuple subclasses");
            goto fail;
        }
    }
    self->match_type = (PyTypeObject *)PyTuple_GET_ITEM(types, 0);
    self->evidence_type = (PyTypeObject *)PyTuple_GET_ITEM(types, 1);
    self->prediction_type = (PyTypeObject *)PyTuple_GET_ITEM(types, 2);
    if (!Py_IS_TYPE(deflt, self->match_type)) {
        walker_bad("default is a RuleMatch");
        goto fail;
    }
    self->default_match = deflt;
    /* rules, and every op, in one array */
    self->nrules = PyTuple_GET_SIZE(rules);
    Py_ssize_t nops = 0;
    for (Py_ssize_t i = 0; i < self->nrules; i++) {
        PyObject *rule = PyTuple_GET_ITEM(rules, i);
        if (!PyTuple_Check(rule) || PyTuple_GET_SIZE(rule) != 4 ||
            !PyUnicode_Check(PyTuple_GET_ITEM(rule, 0)) || !PyTuple_Check(PyTuple_GET_ITEM(rule, 1)) ||
            !PyTuple_Check(PyTuple_GET_ITEM(rule, 2)) || !PyTuple_Check(PyTuple_GET_ITEM(rule, 3))) {
            walker_bad("a rule is (label, keywords, contexts, ops)");
            goto fail;
        }
        nops += PyTuple_GET_SIZE(PyTuple_GET_ITEM(rule, 3));
    }
    self->rules = PyMem_Calloc((size_t)self->nrules + 1, sizeof(WRule));
    self->ops = PyMem_Calloc((size_t)nops + 1, sizeof(WOp));
    if (self->rules == NULL || self->ops == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    Py_ssize_t at = 0;
    for (Py_ssize_t i = 0; i < self->nrules; i++) {
        PyObject *rule = PyTuple_GET_ITEM(rules, i);
        WRule *r = &self->rules[i];
        r->label = PyTuple_GET_ITEM(rule, 0);
        r->keywords = PyTuple_GET_ITEM(rule, 1);
        r->contexts = PyTuple_GET_ITEM(rule, 2);
        PyObject *ops = PyTuple_GET_ITEM(rule, 3);
        r->nops = PyTuple_GET_SIZE(ops);
        r->ops = self->ops + at;
        for (Py_ssize_t k = 0; k < r->nops; k++, at++) {
            if (walker_op(&self->ops[at], PyTuple_GET_ITEM(ops, k), WOP_COUNT, WOP_ARGS,
                          "an op is (code, *arguments)") < 0 ||
                walker_check_op(&self->ops[at], self->evidence_type) < 0)
                goto fail;
        }
    }
    /* the plan of keyword-less rules */
    self->nplan = PyTuple_GET_SIZE(plan);
    self->plan_rank = PyMem_Calloc((size_t)self->nplan + 1, sizeof(Py_ssize_t));
    self->plan_index = PyMem_Calloc((size_t)self->nplan + 1, sizeof(Py_ssize_t));
    if (self->plan_rank == NULL || self->plan_index == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t p = 0; p < self->nplan; p++) {
        PyObject *item = PyTuple_GET_ITEM(plan, p);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 2) {
            walker_bad("a plan item is (rank, rule)");
            goto fail;
        }
        if ((self->plan_rank[p] = walker_index(PyTuple_GET_ITEM(item, 0), "a rank is an int")) < 0 ||
            (self->plan_index[p] = walker_index(PyTuple_GET_ITEM(item, 1), "a rule is an int")) < 0)
            goto fail;
        if (self->plan_index[p] >= self->nrules || (p && self->plan_rank[p] <= self->plan_rank[p - 1])) {
            walker_bad("the plan is in rank order, of known rules");
            goto fail;
        }
    }
    self->nungated = PyTuple_GET_SIZE(ungated);
    self->ungated = PyMem_Calloc((size_t)self->nungated + 1, sizeof(Py_ssize_t));
    if (self->ungated == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t u = 0; u < self->nungated; u++) {
        self->ungated[u] = walker_index(PyTuple_GET_ITEM(ungated, u), "a position is an int");
        if (self->ungated[u] < 0)
            goto fail;
        if (self->ungated[u] >= self->nplan || (u && self->ungated[u] <= self->ungated[u - 1])) {
            walker_bad("ungated positions ascend, within the plan");
            goto fail;
        }
    }
    /* the gates, in rank order */
    self->ngates = PyTuple_GET_SIZE(gates);
    self->gates = PyMem_Calloc((size_t)self->ngates + 1, sizeof(WGate));
    if (self->gates == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t g = 0; g < self->ngates; g++) {
        PyObject *item = PyTuple_GET_ITEM(gates, g);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 3 ||
            !PyDict_CheckExact(PyTuple_GET_ITEM(item, 2))) {
            walker_bad("a gate is (first rank, op, key -> positions)");
            goto fail;
        }
        WGate *gate = &self->gates[g];
        if ((gate->first_rank = walker_index(PyTuple_GET_ITEM(item, 0), "a rank is an int")) < 0)
            goto fail;
        if (g && gate->first_rank <= self->gates[g - 1].first_rank) {
            walker_bad("gates are in rank order");
            goto fail;
        }
        if (walker_op(&gate->op, PyTuple_GET_ITEM(item, 1), WGATE_COUNT, WGATE_ARGS,
                      "a gate op is (code, *arguments)") < 0 ||
            walker_check_gate(&gate->op, state->SubstringSetType) < 0)
            goto fail;
        gate->by_key = PyTuple_GET_ITEM(item, 2);
        /* every position a key names is in the plan */
        Py_ssize_t pos = 0;
        PyObject *key, *ats;
        while (PyDict_Next(gate->by_key, &pos, &key, &ats)) {
            if (!PyTuple_Check(ats)) {
                walker_bad("a gate key names a tuple of positions");
                goto fail;
            }
            for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(ats); k++) {
                const Py_ssize_t p = walker_index(PyTuple_GET_ITEM(ats, k), "a position is an int");
                if (p < 0)
                    goto fail;
                if (p >= self->nplan) {
                    walker_bad("a gate key names a position past the plan");
                    goto fail;
                }
            }
        }
    }
    /* the facts' tables and functions */
    PyObject *table = PyTuple_GET_ITEM(markers, 0);
    if (table != Py_None && !Py_IS_TYPE(table, state->MarkerTableType)) {
        walker_bad("markers[0] is a MarkerTable or None");
        goto fail;
    }
    self->marker_table = table == Py_None ? NULL : table;
    self->py_is_question = PyTuple_GET_ITEM(markers, 1);
    self->py_content_tokens = PyTuple_GET_ITEM(markers, 2);
    self->markers = PyTuple_GET_ITEM(markers, 3);
    self->py_slash_command = PyTuple_GET_ITEM(heads, 0);
    self->py_dollar_mention = PyTuple_GET_ITEM(heads, 1);
    self->py_tokenize = PyTuple_GET_ITEM(heads, 2);
    if (!PyCallable_Check(self->py_is_question) || !PyCallable_Check(self->py_content_tokens) ||
        !PyCallable_Check(self->py_slash_command) || !PyCallable_Check(self->py_dollar_mention) ||
        !PyCallable_Check(self->py_tokenize)) {
        walker_bad("the facts' Python functions are callables");
        goto fail;
    }
    if (model != Py_None) {
        if (!PyTuple_Check(model) || PyTuple_GET_SIZE(model) != 6) {
            walker_bad("model is None or (table, bias, scale, labels, bars, read)");
            goto fail;
        }
        PyObject *features = PyTuple_GET_ITEM(model, 0);
        if (features != Py_None && !Py_IS_TYPE(features, state->FeatureTableType)) {
            walker_bad("model[0] is a FeatureTable or None");
            goto fail;
        }
        self->feature_table = features == Py_None ? NULL : features;
        self->bias = PyTuple_GET_ITEM(model, 1);
        self->scale = PyTuple_GET_ITEM(model, 2);
        self->labels = PyTuple_GET_ITEM(model, 3);
        self->bars = PyTuple_GET_ITEM(model, 4);
        self->model_read = PyTuple_GET_ITEM(model, 5);
        if (!PyTuple_Check(self->bias) || !PyFloat_Check(self->scale) ||
            !PyTuple_Check(self->labels) || !PyDict_CheckExact(self->bars) ||
            !PyCallable_Check(self->model_read) || PyTuple_GET_SIZE(self->labels) < 1) {
            walker_bad("model is (table, bias, scale, labels, bars, read)");
            goto fail;
        }
        for (Py_ssize_t l = 0; l < PyTuple_GET_SIZE(self->labels); l++) {
            PyObject *bar = PyDict_GetItemWithError(self->bars, PyTuple_GET_ITEM(self->labels, l));
            if (bar == NULL || !PyFloat_Check(bar)) {
                if (!PyErr_Occurred())
                    walker_bad("model bars hold a float for every label");
                goto fail;
            }
        }
        self->has_model = 1;
    }
    self->view_factory = PyTuple_GET_ITEM(view, 0);
    self->options = PyTuple_GET_ITEM(view, 1);
    self->signals = PyTuple_GET_ITEM(view, 2);
    if (!PyCallable_Check(self->view_factory)) {
        walker_bad("view[0] is a callable");
        goto fail;
    }
    PyObject *scan = PyTuple_GET_ITEM(args, 10);
    if (scan != Py_None) {
        if (!PyTuple_Check(scan) || PyTuple_GET_SIZE(scan) != 8 ||
            !Py_IS_TYPE(PyTuple_GET_ITEM(scan, 0), state->TokenCodesType) ||
            (PyTuple_GET_ITEM(scan, 1) != Py_None &&
             !Py_IS_TYPE(PyTuple_GET_ITEM(scan, 1), state->FeatureTableType)) ||
            !PyCallable_Check(PyTuple_GET_ITEM(scan, 2)) ||
            !PyCallable_Check(PyTuple_GET_ITEM(scan, 3)) || !PyBool_Check(PyTuple_GET_ITEM(scan, 4)) ||
            !PyTuple_Check(PyTuple_GET_ITEM(scan, 5)) ||
            PyTuple_GET_SIZE(PyTuple_GET_ITEM(scan, 5)) != self->nrules ||
            !PyLong_Check(PyTuple_GET_ITEM(scan, 6)) || !PyBool_Check(PyTuple_GET_ITEM(scan, 7))) {
            walker_bad("scan is None or (TokenCodes, FeatureTable or None, resolve, visible_text, "
                       "ignore_code, lowered keywords per rule, large text, gather corrected)");
            goto fail;
        }
        for (Py_ssize_t i = 0; i < self->nrules; i++) {
            PyObject *lowered = PyTuple_GET_ITEM(PyTuple_GET_ITEM(scan, 5), i);
            if (!PyTuple_Check(lowered) ||
                PyTuple_GET_SIZE(lowered) != PyTuple_GET_SIZE(self->rules[i].keywords)) {
                walker_bad("lowered keywords match each rule's keywords");
                goto fail;
            }
        }
        self->scan = PyTuple_GET_ITEM(scan, 0);
        self->features = PyTuple_GET_ITEM(scan, 1) == Py_None ? NULL : PyTuple_GET_ITEM(scan, 1);
        self->resolve = PyTuple_GET_ITEM(scan, 2);
        self->py_visible_text = PyTuple_GET_ITEM(scan, 3);
        self->ignore_code = PyTuple_GET_ITEM(scan, 4) == Py_True;
        self->lowered_keywords = PyTuple_GET_ITEM(scan, 5);
        self->large_text = PyLong_AsSsize_t(PyTuple_GET_ITEM(scan, 6));
        self->gather_corrected = PyTuple_GET_ITEM(scan, 7) == Py_True;
        if (self->large_text < 0) {
            if (!PyErr_Occurred())
                walker_bad("large text is a size");
            goto fail;
        }
    }
    return (PyObject *)self; /* (tracked by the GC since tp_alloc) */
fail:
    Py_DECREF(self);
    return NULL;
}

/* -- one walk ------------------------------------------------------------------------ */

typedef struct {
    Py_ssize_t *a;
    Py_ssize_t n, cap;
    Py_ssize_t small[64];
} WHeap;

static int
wheap_push(WHeap *h, Py_ssize_t v)
{
    if (h->n == h->cap) {
        void *items = h->a;
        if (grow_small(&items, h->small, &h->cap, sizeof(Py_ssize_t)) < 0)
            return -1;
        h->a = items;
    }
    Py_ssize_t i = h->n++;
    while (i > 0) {
        const Py_ssize_t parent = (i - 1) / 2;
        if (h->a[parent] <= v)
            break;
        h->a[i] = h->a[parent];
        i = parent;
    }
    h->a[i] = v;
    return 0;
}

static Py_ssize_t
wheap_pop(WHeap *h)
{
    const Py_ssize_t top = h->a[0];
    const Py_ssize_t v = h->a[--h->n];
    Py_ssize_t i = 0;
    for (;;) {
        Py_ssize_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->a[c + 1] < h->a[c])
            c++;
        if (v <= h->a[c])
            break;
        h->a[i] = h->a[c];
        i = c;
    }
    if (h->n)
        h->a[i] = v;
    return top;
}

typedef struct {
    Walker *w;
    PyObject *text, *visible, *contexts, *signal_hits, *words, *prefixes, *hitting;
    PyObject *corrected, *ids;
    PyObject *view;       /* owned; NULL until a Python kind needs it */
    int question;         /* -1: not read */
    PyObject *command;    /* owned; NULL: not read */
    PyObject *mention;    /* owned; NULL: not read */
    int model_read;
    PyObject *prediction; /* owned Prediction, or None; valid once model_read */
    PyObject *label;      /* borrowed from prediction; NULL without one */
    double probability;
    PyObject *confident;  /* borrowed: label or None */
    PyObject *content;    /* owned tuple; NULL: not read */
    Py_ssize_t content_limit;
    PyObject *lead;       /* owned frozenset; NULL: not read */
    PyObject *lowered;    /* owned str; NULL: not read */
    PyObject *tokens;     /* owned tuple of the visible text's tokens; NULL: not read */
    HitLog *log;          /* match(): the known hitting tokens, until put in `hitting` */
    int log_asked;        /* tokens looked up in it so far */
} Walk;

static void
walk_release(Walk *s)
{
    Py_CLEAR(s->signal_hits);
    Py_CLEAR(s->view);
    Py_CLEAR(s->command);
    Py_CLEAR(s->mention);
    Py_CLEAR(s->prediction);
    Py_CLEAR(s->content);
    Py_CLEAR(s->lead);
    Py_CLEAR(s->lowered);
    Py_CLEAR(s->tokens);
}

/* Set a fact on the view, if there is one yet. */
static int
walk_tell(Walk *s, int name, PyObject *value)
{
    if (s->view == NULL)
        return 0;
    return PyObject_SetAttr(s->view, s->w->names[name], value);
}

static int
walk_tell_content(Walk *s)
{
    if (s->view == NULL || s->content == NULL)
        return 0;
    PyObject *limit = PyLong_FromSsize_t(s->content_limit);
    if (limit == NULL)
        return -1;
    const int r = walk_tell(s, WN_CONTENT, s->content) < 0 ? -1 : walk_tell(s, WN_CONTENT_LIMIT, limit);
    Py_DECREF(limit);
    return r;
}

static int walk_hitting(Walk *s);

/* The PromptView the Python kinds read (borrowed), made on first need with the facts
 * read so far. */
static PyObject *
walk_view(Walk *s)
{
    if (s->view != NULL)
        return s->view;
    Walker *w = s->w;
    if (s->signal_hits == NULL) {
        if (walk_hitting(s) < 0)
            return NULL;
        s->signal_hits = PyTuple_Pack(3, s->words, s->prefixes, s->hitting);
        if (s->signal_hits == NULL)
            return NULL;
    }
    PyObject *args[8] = {w->options, w->signals, s->text, s->contexts, s->visible,
                         s->signal_hits, s->corrected, s->ids};
    PyObject *view = PyObject_Vectorcall(w->view_factory, args, 8, NULL);
    if (view == NULL)
        return NULL;
    s->view = view;
    if ((s->question >= 0 && walk_tell(s, WN_QUESTION, s->question ? Py_True : Py_False) < 0) ||
        (s->command != NULL && walk_tell(s, WN_COMMAND, s->command) < 0) ||
        (s->model_read && (walk_tell(s, WN_PREDICTION, s->prediction) < 0 ||
                           walk_tell(s, WN_CONFIDENT, s->confident) < 0)) ||
        walk_tell_content(s) < 0 || (s->lead != NULL && walk_tell(s, WN_LEAD, s->lead) < 0) ||
        (s->lowered != NULL && walk_tell(s, WN_LOWERED, s->lowered) < 0) ||
        (s->tokens != NULL && walk_tell(s, WN_TOKENS, s->tokens) < 0))
        return NULL;
    return view;
}

/* Whether `text` starts with one of `chars` (ASCII) or with whitespace: only then may it
 * start with a slash command or a $-mention (markers.slash_command's and mentions'
 * first test). */
static int
walk_may_open(PyObject *text, const char *chars)
{
    if (PyUnicode_GET_LENGTH(text) == 0)
        return 0;
    const Py_UCS4 ch = PyUnicode_READ_CHAR(text, 0);
    return (ch != 0 && ch < 128 && strchr(chars, (int)ch) != NULL) || Py_UNICODE_ISSPACE(ch);
}

/* The slash command (borrowed: None or str). */
static PyObject *
walk_command(Walk *s)
{
    if (s->command == NULL) {
        PyObject *got = walk_may_open(s->text, "/@")
                            ? PyObject_CallOneArg(s->w->py_slash_command, s->text)
                            : Py_NewRef(Py_None);
        if (got == NULL)
            return NULL;
        s->command = got;
        if (walk_tell(s, WN_COMMAND, got) < 0)
            return NULL;
    }
    return s->command;
}

/* The $-mention's name (borrowed: None or str). */
static PyObject *
walk_mention(Walk *s)
{
    if (s->mention == NULL) {
        PyObject *got = walk_may_open(s->text, "$[")
                            ? PyObject_CallOneArg(s->w->py_dollar_mention, s->text)
                            : Py_NewRef(Py_None);
        if (got == NULL)
            return NULL;
        s->mention = got;
    }
    return s->mention;
}

/* Whether the prompt asks a question (1, 0; -1: an exception). */
static int
walk_question(Walk *s)
{
    if (s->question >= 0)
        return s->question;
    Walker *w = s->w;
    PyObject *got = NULL;
    if (w->marker_table != NULL) {
        PyObject *args[2] = {s->visible, Py_True};
        got = MarkerTable_is_question((MarkerTable *)w->marker_table, args, 2);
        if (got == NULL)
            return -1;
        if (got == Py_None)
            Py_CLEAR(got);
    }
    if (got == NULL) {
        PyObject *args[2] = {s->visible, w->markers};
        got = PyObject_Vectorcall(w->py_is_question, args, 2, NULL);
        if (got == NULL)
            return -1;
    }
    const int r = PyObject_IsTrue(got);
    Py_DECREF(got);
    if (r < 0)
        return -1;
    s->question = r;
    return walk_tell(s, WN_QUESTION, r ? Py_True : Py_False) < 0 ? -1 : r;
}

/* The text model's reading (1: a prediction; 0: no model; -1: an exception). */
static int
walk_model(Walk *s)
{
    if (s->model_read)
        return s->label != NULL;
    Walker *w = s->w;
    PyObject *prediction = NULL;
    if (!w->has_model) {
        prediction = Py_NewRef(Py_None);
    }
    else {
        const int any_corrected = s->corrected != Py_None && PyObject_IsTrue(s->corrected);
        if (any_corrected < 0)
            return -1;
        /* (view._read_model: ``self._corrected or ()``) */
        PyObject *corrected = any_corrected ? s->corrected : w->empty;
        if (w->feature_table != NULL && PyBytes_Check(s->ids)) {
            PyObject *args[4] = {s->ids, corrected, w->bias, w->scale};
            PyObject *top = FeatureTable_top_of((FeatureTable *)w->feature_table, args, 4);
            if (top == NULL)
                return -1;
            if (top != Py_None) {
                const Py_ssize_t lane = PyLong_AsSsize_t(PyTuple_GET_ITEM(top, 0));
                if (lane < 0 || lane >= PyTuple_GET_SIZE(w->labels)) {
                    Py_DECREF(top);
                    if (!PyErr_Occurred())
                        PyErr_SetString(PyExc_ValueError, "walk(): the model's lanes and labels differ");
                    return -1;
                }
                prediction = w->prediction_type->tp_alloc(w->prediction_type, 2);
                if (prediction == NULL) {
                    Py_DECREF(top);
                    return -1;
                }
                PyTuple_SET_ITEM(prediction, 0, Py_NewRef(PyTuple_GET_ITEM(w->labels, lane)));
                PyTuple_SET_ITEM(prediction, 1, Py_NewRef(PyTuple_GET_ITEM(top, 1)));
            }
            Py_DECREF(top);
        }
        if (prediction == NULL) { /* the model reads the text itself (TextModel.read) */
            PyObject *args[4] = {s->visible, corrected, Py_None, s->ids};
            prediction = PyObject_Vectorcall(w->model_read, args, 4, NULL);
            if (prediction == NULL)
                return -1;
        }
        if (prediction != Py_None &&
            (!PyTuple_Check(prediction) || PyTuple_GET_SIZE(prediction) != 2 ||
             !PyUnicode_Check(PyTuple_GET_ITEM(prediction, 0)) ||
             !PyFloat_Check(PyTuple_GET_ITEM(prediction, 1)))) {
            Py_DECREF(prediction);
            PyErr_SetString(PyExc_TypeError, "walk(): the model's reading is no Prediction");
            return -1;
        }
    }
    s->prediction = prediction;
    s->model_read = 1;
    s->label = NULL;
    s->confident = Py_None;
    if (prediction != Py_None) {
        s->label = PyTuple_GET_ITEM(prediction, 0);
        s->probability = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(prediction, 1));
        PyObject *bar = PyDict_GetItemWithError(w->bars, s->label);
        if (bar == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "walk(): a label the model bars do not hold");
            return -1;
        }
        if (!(s->probability < PyFloat_AS_DOUBLE(bar)))
            s->confident = s->label;
    }
    if (walk_tell(s, WN_PREDICTION, s->prediction) < 0 || walk_tell(s, WN_CONFIDENT, s->confident) < 0)
        return -1;
    return s->label != NULL;
}

/* PromptView.content_head's tokens (borrowed: the whole tuple read, of which the first
 * `n` are the head; a later call with a larger `n` may replace it). */
static PyObject *
walk_content(Walk *s, Py_ssize_t n)
{
    if (s->content != NULL &&
        !(PyTuple_GET_SIZE(s->content) < n && s->content_limit < n))
        return s->content;
    Walker *w = s->w;
    const Py_ssize_t limit = n > WALK_LEAD_WINDOW ? n : WALK_LEAD_WINDOW;
    PyObject *limit_obj = PyLong_FromSsize_t(limit);
    if (limit_obj == NULL)
        return NULL;
    PyObject *got = NULL;
    if (w->marker_table != NULL) {
        PyObject *args[3] = {s->visible, limit_obj, Py_True};
        got = MarkerTable_content((MarkerTable *)w->marker_table, args, 3);
        if (got == Py_None)
            Py_CLEAR(got);
        else if (got == NULL) {
            Py_DECREF(limit_obj);
            return NULL;
        }
    }
    if (got == NULL) {
        PyObject *args[3] = {s->visible, w->markers, limit_obj};
        got = PyObject_Vectorcall(w->py_content_tokens, args, 3, NULL);
    }
    Py_DECREF(limit_obj);
    if (got == NULL)
        return NULL;
    if (!PyTuple_Check(got)) {
        Py_DECREF(got);
        PyErr_SetString(PyExc_TypeError, "walk(): content_tokens gave no tuple");
        return NULL;
    }
    Py_XSETREF(s->content, got);
    s->content_limit = limit;
    return walk_tell_content(s) < 0 ? NULL : s->content;
}

#define WALK_LOG_LOOKUPS 8 /* tokens looked up in the hit log before it is made a dict */

/* Whether the str `a` and `b` are equal (both exact str: equal str have one kind, PEP
 * 393's canonical form, so length, kind and bytes decide). */
static inline int
same_str(PyObject *a, PyObject *b)
{
    const Py_ssize_t n = PyUnicode_GET_LENGTH(a);
    const int kind = PyUnicode_KIND(a);
    return a == b || (PyUnicode_GET_LENGTH(b) == n && PyUnicode_KIND(b) == kind &&
                      memcmp(PyUnicode_DATA(a), PyUnicode_DATA(b), (size_t)n * (size_t)kind) == 0);
}

/* The hit logged for str `token` (borrowed), or None. */
static PyObject *
hit_log_find(const HitLog *log, PyObject *token)
{
    for (Py_ssize_t k = 0; k < log->n; k++) {
        if (same_str(log->a[k].token, token))
            return log->a[k].hit;
    }
    return Py_None;
}

/* Put the hit log in `hitting` (the view reads the dict), and read the dict from now on. */
static int
walk_hitting(Walk *s)
{
    HitLog *log = s->log;
    if (log == NULL)
        return 0;
    s->log = NULL;
    for (Py_ssize_t k = 0; k < log->n; k++) {
        if (PyDict_SetItem(s->hitting, log->a[k].token, log->a[k].hit) < 0)
            return -1;
    }
    hit_log_free(log);
    return 0;
}

/* The words a visible token hits (borrowed: a tuple of (word, fuzzy), maybe empty). */
static PyObject *
walk_hits_of(Walk *s, PyObject *token)
{
    PyObject *hit = PyDict_GetItemWithError(s->hitting, token);
    if (hit != NULL)
        return hit;
    if (PyErr_Occurred())
        return NULL;
    if (s->log != NULL && PyUnicode_Check(token)) {
        if (++s->log_asked <= WALK_LOG_LOOKUPS)
            return hit_log_find(s->log, token);
        if (walk_hitting(s) < 0)
            return NULL;
        return walk_hits_of(s, token);
    }
    return Py_None; /* (no word: the callers read None as ()) */
}

/* PromptView.lead_words (borrowed frozenset). */
static PyObject *
walk_lead(Walk *s)
{
    if (s->lead != NULL)
        return s->lead;
    PyObject *content = walk_content(s, 1);
    if (content == NULL)
        return NULL;
    PyObject *lead = PyFrozenSet_New(NULL);
    if (lead == NULL)
        return NULL;
    if (PyTuple_GET_SIZE(content) > 0) {
        PyObject *hit = walk_hits_of(s, PyTuple_GET_ITEM(content, 0));
        if (hit == NULL) {
            Py_DECREF(lead);
            return NULL;
        }
        if (hit != Py_None) {
            if (!PyTuple_Check(hit)) {
                Py_DECREF(lead);
                PyErr_SetString(PyExc_TypeError, "walk(): a token's hits are a tuple");
                return NULL;
            }
            for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(hit); k++) {
                PyObject *pair = PyTuple_GET_ITEM(hit, k);
                if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) < 1 ||
                    PySet_Add(lead, PyTuple_GET_ITEM(pair, 0)) < 0) {
                    Py_DECREF(lead);
                    if (!PyErr_Occurred())
                        PyErr_SetString(PyExc_TypeError, "walk(): a hit is (word, fuzzy)");
                    return NULL;
                }
            }
        }
    }
    s->lead = lead;
    return walk_tell(s, WN_LEAD, lead) < 0 ? NULL : lead;
}

/* The raw text, str.lower()'d (borrowed). */
static PyObject *
walk_lowered(Walk *s)
{
    if (s->lowered == NULL) {
        PyObject *got = PyObject_CallMethodNoArgs(s->text, s->w->names[WN_LOWER]);
        if (got == NULL)
            return NULL;
        if (!PyUnicode_Check(got)) {
            Py_DECREF(got);
            PyErr_SetString(PyExc_TypeError, "walk(): the text's lower() gave no str");
            return NULL;
        }
        s->lowered = got;
        if (walk_tell(s, WN_LOWERED, got) < 0)
            return NULL;
    }
    return s->lowered;
}

/* The visible text's tokens (borrowed tuple: PromptView.tokens). */
static PyObject *
walk_tokens(Walk *s)
{
    if (s->tokens == NULL) {
        PyObject *found = PyObject_CallOneArg(s->w->py_tokenize, s->visible);
        if (found == NULL)
            return NULL;
        PyObject *tokens = PySequence_Tuple(found);
        Py_DECREF(found);
        if (tokens == NULL)
            return NULL;
        s->tokens = tokens;
        if (walk_tell(s, WN_TOKENS, tokens) < 0)
            return NULL;
    }
    return s->tokens;
}

/* Whether `token` (a visible one) hits looked-up `word`: 0 exactly, 1 by typo, -1 not at
 * all, -2 on an exception (PromptView.word_at's reading of hits_of). */
static int
walk_word_hit(Walk *s, PyObject *word, PyObject *token)
{
    PyObject *hit = walk_hits_of(s, token);
    if (hit == NULL)
        return -2;
    if (hit == Py_None)
        return -1;
    if (!PyTuple_Check(hit)) {
        PyErr_SetString(PyExc_TypeError, "walk(): a token's hits are a tuple");
        return -2;
    }
    for (Py_ssize_t m = 0; m < PyTuple_GET_SIZE(hit); m++) {
        PyObject *pair = PyTuple_GET_ITEM(hit, m);
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "walk(): a hit is (word, fuzzy)");
            return -2;
        }
        PyObject *held = PyTuple_GET_ITEM(pair, 0);
        const int eq = PyUnicode_CheckExact(held) && PyUnicode_CheckExact(word)
                           ? same_str(held, word)
                           : PyObject_RichCompareBool(held, word, Py_EQ);
        if (eq < 0)
            return -2;
        if (eq) {
            PyObject *flag = PyTuple_GET_ITEM(pair, 1);
            const int fuzzy = flag == Py_False ? 0 : flag == Py_True ? 1 : PyObject_IsTrue(flag);
            return fuzzy < 0 ? -2 : fuzzy;
        }
    }
    return -1;
}

/* Whether `word` holds a Hangul or Han character (view.is_hangul_or_han). */
static int
walk_hangul_or_han(PyObject *word)
{
    if (PyUnicode_IS_ASCII(word))
        return 0;
    const int kind = PyUnicode_KIND(word);
    const void *data = PyUnicode_DATA(word);
    for (Py_ssize_t i = 0; i < PyUnicode_GET_LENGTH(word); i++) {
        const Py_UCS4 o = PyUnicode_READ(kind, data, i);
        if ((o >= 0xAC00 && o <= 0xD7A3) || (o >= 0x1100 && o <= 0x11FF) ||
            (o >= 0x3130 && o <= 0x318F) || (o >= 0x3400 && o <= 0x4DBF) ||
            (o >= 0x4E00 && o <= 0x9FFF) || (o >= 0xF900 && o <= 0xFAFF) ||
            (o >= 0x20000 && o <= 0x3134F))
            return 1;
    }
    return 0;
}

/* An entry op's (entries, by first word), from plan_of(condition) (new reference;
 * NULL on an exception or a plan of another shape). */
static PyObject *
walk_entry_plan(PyObject *plan_of, PyObject *condition)
{
    PyObject *plan = PyObject_CallOneArg(plan_of, condition);
    if (plan == NULL)
        return NULL;
    if (!PyTuple_Check(plan) || PyTuple_GET_SIZE(plan) != 2 ||
        !PyTuple_Check(PyTuple_GET_ITEM(plan, 0)) || !PyDict_Check(PyTuple_GET_ITEM(plan, 1))) {
        Py_DECREF(plan);
        PyErr_SetString(PyExc_TypeError, "walk(): an entry plan is (entries, by first word)");
        return NULL;
    }
    return plan;
}

static int
walk_cmp_size(const void *a, const void *b)
{
    const Py_ssize_t x = *(const Py_ssize_t *)a, y = *(const Py_ssize_t *)b;
    return (x > y) - (x < y);
}

/* The positions, ascending, of the entries whose first word is in `firsts` (a set):
 * phrases.entries_starting. Returns the count (-1 on an exception); `*out` is `small` or
 * a PyMem buffer the caller frees. */
static Py_ssize_t
walk_starting(PyObject *by_first, Py_ssize_t nentries, PyObject *firsts, Py_ssize_t *small,
              Py_ssize_t nsmall, Py_ssize_t **out)
{
    *out = small;
    Py_ssize_t n = 0, cap = nsmall;
    const int by_firsts = PySet_GET_SIZE(firsts) <= PyDict_GET_SIZE(by_first);
    PyObject *iter = PyObject_GetIter(by_firsts ? firsts : by_first);
    if (iter == NULL)
        return -1;
    PyObject *word;
    while ((word = PyIter_Next(iter)) != NULL) {
        PyObject *ats = NULL;
        if (by_firsts) {
            ats = PyDict_GetItemWithError(by_first, word);
        }
        else {
            const int in = PySet_Contains(firsts, word);
            if (in > 0)
                ats = PyDict_GetItemWithError(by_first, word);
            else if (in < 0)
                ats = NULL;
        }
        Py_DECREF(word);
        if (ats == NULL) {
            if (PyErr_Occurred())
                goto fail;
            continue;
        }
        if (!PyTuple_Check(ats)) {
            PyErr_SetString(PyExc_TypeError, "walk(): a first word names a tuple of positions");
            goto fail;
        }
        for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(ats); k++) {
            const Py_ssize_t at = PyLong_AsSsize_t(PyTuple_GET_ITEM(ats, k));
            if (at < 0 || at >= nentries) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_ValueError, "walk(): a first word names no entry");
                goto fail;
            }
            if (n == cap) {
                Py_ssize_t *grown = PyMem_Malloc((size_t)cap * 2 * sizeof(Py_ssize_t));
                if (grown == NULL) {
                    PyErr_NoMemory();
                    goto fail;
                }
                memcpy(grown, *out, (size_t)n * sizeof(Py_ssize_t));
                if (*out != small)
                    PyMem_Free(*out);
                *out = grown;
                cap *= 2;
            }
            (*out)[n++] = at;
        }
    }
    Py_DECREF(iter);
    if (PyErr_Occurred())
        goto fail_freed;
    if (n > 16) {
        qsort(*out, (size_t)n, sizeof(Py_ssize_t), walk_cmp_size);
        return n;
    }
    for (Py_ssize_t a = 1; a < n; a++) { /* (few: an insertion sort) */
        const Py_ssize_t v = (*out)[a];
        Py_ssize_t b = a - 1;
        while (b >= 0 && (*out)[b] > v) {
            (*out)[b + 1] = (*out)[b];
            b--;
        }
        (*out)[b + 1] = v;
    }
    return n;
fail:
    Py_DECREF(iter);
fail_freed:
    if (*out != small)
        PyMem_Free(*out);
    *out = small;
    return -1;
}

/* Whether every word of `words` is in `present` (1, 0; -1 on an exception). */
static int
walk_all_in(PyObject *present, PyObject *words)
{
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(words); k++) {
        const int in = PySet_Contains(present, PyTuple_GET_ITEM(words, k));
        if (in <= 0)
            return in;
    }
    return 1;
}

/* leading._lead_in_view through the index: 0 the content starts with `words` exactly,
 * 1 with typos (each where `allow` lets it), -1 not, -2 on an exception. */
static int
walk_lead_in(Walk *s, PyObject *words, int typo)
{
    const Py_ssize_t n = PyTuple_GET_SIZE(words);
    PyObject *content = walk_content(s, n);
    if (content == NULL)
        return -2;
    if (n == 0 || n > PyTuple_GET_SIZE(content))
        return -1;
    Py_INCREF(content);
    int fuzzy = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        const int hit = walk_word_hit(s, PyTuple_GET_ITEM(words, k), PyTuple_GET_ITEM(content, k));
        if (hit < 0 || (hit && !(typo && !walk_hangul_or_han(PyTuple_GET_ITEM(words, k))))) {
            Py_DECREF(content);
            return hit == -2 ? -2 : -1;
        }
        fuzzy |= hit;
    }
    Py_DECREF(content);
    return fuzzy;
}

/* phrases.find_in_view through the index (_first_run over word_starts): 0 an exact run,
 * 1 only runs with typos, -1 none, -2 on an exception. */
static int
walk_run(Walk *s, PyObject *words, int typo)
{
    PyObject *tokens = walk_tokens(s);
    if (tokens == NULL)
        return -2;
    const Py_ssize_t n = PyTuple_GET_SIZE(words), ntok = PyTuple_GET_SIZE(tokens);
    int fuzzy_seen = 0;
    for (Py_ssize_t start = 0; start < ntok; start++) {
        const int head = walk_word_hit(s, PyTuple_GET_ITEM(words, 0), PyTuple_GET_ITEM(tokens, start));
        if (head == -2)
            return -2;
        if (head < 0 || (head && !(typo && !walk_hangul_or_han(PyTuple_GET_ITEM(words, 0)))))
            continue;
        int fuzzy = head, held = 1;
        for (Py_ssize_t k = 1; k < n; k++) {
            if (start + k >= ntok) {
                held = 0;
                break;
            }
            const int hit = walk_word_hit(s, PyTuple_GET_ITEM(words, k), PyTuple_GET_ITEM(tokens, start + k));
            if (hit == -2)
                return -2;
            if (hit < 0 || (hit && !(typo && !walk_hangul_or_han(PyTuple_GET_ITEM(words, k))))) {
                held = 0;
                break;
            }
            fuzzy |= hit;
        }
        if (held) {
            if (!fuzzy)
                return 0;
            fuzzy_seen = 1;
        }
    }
    return fuzzy_seen ? 1 : -1;
}

/* exclude.excluded_by's test of one entry: whether `words` occur consecutively in the
 * visible tokens, exactly (1, 0; -1 on an exception). */
static int
walk_exact_run(Walk *s, PyObject *words)
{
    PyObject *tokens = walk_tokens(s);
    if (tokens == NULL)
        return -1;
    const Py_ssize_t n = PyTuple_GET_SIZE(words), ntok = PyTuple_GET_SIZE(tokens);
    for (Py_ssize_t start = 0; start + n <= ntok; start++) {
        Py_ssize_t k = 0;
        for (; k < n; k++) {
            const int eq = PyUnicode_Compare(PyTuple_GET_ITEM(tokens, start + k), PyTuple_GET_ITEM(words, k));
            if (eq == -1 && PyErr_Occurred())
                return -1;
            if (eq != 0)
                break;
        }
        if (k == n)
            return 1;
    }
    return 0;
}

/* Evidence(key, shown, fuzzy); steals `shown`. */
static PyObject *
walk_evidence_of(Walk *s, PyObject *key, PyObject *shown, int fuzzy)
{
    if (shown == NULL)
        return NULL;
    PyTypeObject *type = s->w->evidence_type;
    PyObject *ev = type->tp_alloc(type, 3);
    if (ev == NULL) {
        Py_DECREF(shown);
        return NULL;
    }
    PyTuple_SET_ITEM(ev, 0, Py_NewRef(key));
    PyTuple_SET_ITEM(ev, 1, shown);
    PyTuple_SET_ITEM(ev, 2, Py_NewRef(fuzzy ? Py_True : Py_False));
    return ev;
}

/* Evidence(key, shown, False); steals `shown`. */
static PyObject *
walk_evidence(Walk *s, PyObject *key, PyObject *shown)
{
    return walk_evidence_of(s, key, shown, 0);
}

/* Whether `name` is in `names` or the wildcard is (1, 0; -1: an exception). */
static int
walk_named(Walk *s, PyObject *names, PyObject *name)
{
    const int in = PySet_Contains(names, name);
    return in ? in : PySet_Contains(names, s->w->names[WN_ANY]);
}

/* A condition's evidence (new reference), None when it does not hold, NULL on an
 * exception. The native ops state what their kinds' match() states. */
static PyObject *
walk_op(Walk *s, const WOp *op)
{
    PyObject *const *a = op->arg;
    switch (op->code) {
    case WOP_QUESTION: { /* QuestionKind.match */
        const int asks = walk_question(s);
        if (asks < 0)
            return NULL;
        return Py_NewRef(asks == (a[0] == Py_True) ? a[1] : Py_None);
    }
    case WOP_MODEL: { /* PredictedKind.match (sure), LikeliestKind.match */
        const int read = walk_model(s);
        if (read < 0)
            return NULL;
        PyObject *label = a[1] == Py_True ? s->confident : (read ? s->label : Py_None);
        if (label == Py_None)
            Py_RETURN_NONE;
        const int in = PySet_Contains(a[0], label);
        if (in <= 0)
            return in < 0 ? NULL : Py_NewRef(Py_None);
        return walk_evidence(s, a[2], shown_probability(label, s->probability));
    }
    case WOP_COMMAND: { /* CommandsKind.match */
        PyObject *command = walk_command(s);
        if (command == NULL)
            return NULL;
        if (command == Py_None)
            Py_RETURN_NONE;
        const int in = walk_named(s, a[0], command);
        if (in <= 0)
            return in < 0 ? NULL : Py_NewRef(Py_None);
        return walk_evidence(s, a[1], PyUnicode_Concat(s->w->names[WN_SLASH], command));
    }
    case WOP_MENTION: { /* MentionsKind.match */
        PyObject *name = walk_mention(s);
        if (name == NULL)
            return NULL;
        if (name == Py_None)
            Py_RETURN_NONE;
        const int excepted = PySet_Contains(a[1], name);
        if (excepted != 0)
            return excepted < 0 ? NULL : Py_NewRef(Py_None);
        const int in = walk_named(s, a[0], name);
        if (in <= 0)
            return in < 0 ? NULL : Py_NewRef(Py_None);
        return walk_evidence(s, a[2], PyUnicode_Concat(s->w->names[WN_DOLLAR], name));
    }
    case WOP_STEMS: { /* StemsKind.match, every stem indexed */
        for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(a[0]); k++) {
            PyObject *stem = PyTuple_GET_ITEM(a[0], k);
            const int in = PySet_Contains(s->prefixes, stem);
            if (in < 0)
                return NULL;
            if (in)
                return walk_evidence(s, a[1], Py_NewRef(stem));
        }
        Py_RETURN_NONE;
    }
    case WOP_SUBSTRINGS:
    case WOP_EXCLUDE_SUBSTRINGS: { /* SubstringsKind.match, ExcludeSubstringsKind.match */
        PyObject *lowered = walk_lowered(s);
        if (lowered == NULL)
            return NULL;
        PyObject *entries = op->code == WOP_SUBSTRINGS && PyUnicode_IS_ASCII(lowered) ? a[1] : a[0];
        for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(entries); k++) {
            PyObject *entry = PyTuple_GET_ITEM(entries, k);
            const int in = PyUnicode_Contains(lowered, entry);
            if (in < 0)
                return NULL;
            if (in) {
                if (op->code == WOP_EXCLUDE_SUBSTRINGS)
                    Py_RETURN_NONE;
                return walk_evidence(s, a[2], Py_NewRef(entry));
            }
        }
        return Py_NewRef(op->code == WOP_EXCLUDE_SUBSTRINGS ? a[1] : Py_None);
    }
    case WOP_LEAD_ENDINGS: { /* LeadEndingsKind.match */
        PyObject *content = walk_content(s, 1);
        if (content == NULL)
            return NULL;
        if (PyTuple_GET_SIZE(content) == 0)
            Py_RETURN_NONE;
        PyObject *word = PyTuple_GET_ITEM(content, 0);
        const int excepted = PySet_Contains(a[1], word);
        if (excepted != 0)
            return excepted < 0 ? NULL : Py_NewRef(Py_None);
        const Py_ssize_t n = PyUnicode_GET_LENGTH(word);
        for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(a[0]); k++) {
            PyObject *ending = PyTuple_GET_ITEM(a[0], k);
            if (n < PyUnicode_GET_LENGTH(ending) + WALK_MIN_STEM)
                continue;
            const Py_ssize_t ends = PyUnicode_Tailmatch(word, ending, 0, PY_SSIZE_T_MAX, 1);
            if (ends < 0)
                return NULL;
            if (ends)
                return walk_evidence(s, a[2], Py_NewRef(ending));
        }
        Py_RETURN_NONE;
    }
    case WOP_LEADING:
    case WOP_PHRASES:
    case WOP_EXCLUDE: {
        /* LeadingKind.match, PhrasesKind.match, ExcludeKind.match through the index: the
         * entries whose first word the first content word (leading) or some token (the
         * others) hits, in entry order; the first that holds exactly wins, else the first
         * that holds with typos (best_found); exclude vetoes on an exact run */
        PyObject *firsts;
        if (op->code == WOP_LEADING) {
            PyObject *content = walk_content(s, 1);
            if (content == NULL)
                return NULL;
            if (PyTuple_GET_SIZE(content) == 0)
                Py_RETURN_NONE;
            firsts = walk_lead(s);
            if (firsts == NULL)
                return NULL;
        }
        else {
            firsts = s->words;
        }
        PyObject *plan = walk_entry_plan(a[0], a[1]);
        if (plan == NULL)
            return NULL;
        PyObject *entries = PyTuple_GET_ITEM(plan, 0);
        const int typo = op->code != WOP_EXCLUDE && a[2] == Py_True;
        Py_ssize_t small[32], *ats;
        Py_INCREF(firsts);
        const Py_ssize_t n =
            walk_starting(PyTuple_GET_ITEM(plan, 1), PyTuple_GET_SIZE(entries), firsts, small, 32, &ats);
        Py_DECREF(firsts);
        if (n < 0) {
            Py_DECREF(plan);
            return NULL;
        }
        PyObject *found = NULL; /* borrowed from the plan: the entry's text */
        int found_fuzzy = 0, failed = 0;
        for (Py_ssize_t k = 0; k < n; k++) {
            PyObject *entry = PyTuple_GET_ITEM(entries, ats[k]);
            if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) < 2 ||
                !PyTuple_Check(PyTuple_GET_ITEM(entry, 1)) ||
                PyTuple_GET_SIZE(PyTuple_GET_ITEM(entry, 1)) < 1) {
                PyErr_SetString(PyExc_TypeError, "walk(): an entry is (text, words)");
                failed = 1;
                break;
            }
            PyObject *words = PyTuple_GET_ITEM(entry, 1);
            int r;
            if (op->code == WOP_LEADING) {
                r = walk_lead_in(s, words, typo);
            }
            else {
                r = walk_all_in(s->words, words);
                if (r < 0) {
                    failed = 1;
                    break;
                }
                if (!r)
                    continue;
                if (op->code == WOP_EXCLUDE) {
                    r = walk_exact_run(s, words);
                    if (r < 0) {
                        failed = 1;
                        break;
                    }
                    if (r) { /* vetoed */
                        found = PyTuple_GET_ITEM(entry, 0);
                        break;
                    }
                    continue;
                }
                r = walk_run(s, words, typo);
            }
            if (r == -2) {
                failed = 1;
                break;
            }
            if (r == 0) {
                found = PyTuple_GET_ITEM(entry, 0);
                found_fuzzy = 0;
                break;
            }
            if (r == 1 && found == NULL) {
                found = PyTuple_GET_ITEM(entry, 0);
                found_fuzzy = 1;
            }
        }
        if (ats != small)
            PyMem_Free(ats);
        PyObject *out = NULL;
        if (!failed) {
            if (op->code == WOP_EXCLUDE)
                out = Py_NewRef(found != NULL ? Py_None : a[2]);
            else if (found != NULL)
                out = walk_evidence_of(s, a[op->code == WOP_LEADING ? 4 : 3], Py_NewRef(found),
                                       found_fuzzy);
            else
                out = Py_NewRef(op->code == WOP_LEADING && a[3] == Py_True ? a[5] : Py_None);
        }
        Py_DECREF(plan);
        return out;
    }
    default: { /* WOP_PYTHON: the kind's match(condition, view) */
        PyObject *view = walk_view(s);
        if (view == NULL)
            return NULL;
        PyObject *args[2] = {a[1], view};
        return PyObject_Vectorcall(a[0], args, 2, NULL);
    }
    }
}

/* Push the plan positions `key` names (a gate's present key). */
static int
walk_push_key(WHeap *heap, PyObject *by_key, PyObject *key)
{
    PyObject *ats = PyDict_GetItemWithError(by_key, key);
    if (ats == NULL)
        return PyErr_Occurred() ? -1 : 0;
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(ats); k++) {
        if (wheap_push(heap, PyLong_AsSsize_t(PyTuple_GET_ITEM(ats, k))) < 0)
            return -1;
    }
    return 0;
}

/* Push the positions of every key of the iterable `keys` (steals it). */
static int
walk_push_keys(WHeap *heap, PyObject *by_key, PyObject *keys)
{
    if (keys == NULL)
        return -1;
    PyObject *iter = PyObject_GetIter(keys);
    Py_DECREF(keys);
    if (iter == NULL)
        return -1;
    PyObject *key;
    while ((key = PyIter_Next(iter)) != NULL) {
        const int r = walk_push_key(heap, by_key, key);
        Py_DECREF(key);
        if (r < 0) {
            Py_DECREF(iter);
            return -1;
        }
    }
    Py_DECREF(iter);
    return PyErr_Occurred() ? -1 : 0;
}

/* A name, if it is a gate key, and the wildcard, if it is one (command, mention). */
static int
walk_push_named(Walk *s, WHeap *heap, PyObject *by_key, PyObject *keys, PyObject *name)
{
    PyObject *any = s->w->names[WN_ANY];
    for (int k = 0; k < 2; k++) {
        PyObject *key = k ? any : name;
        if (k && PyUnicode_Compare(name, any) == 0)
            break; /* (one key, once) */
        const int in = PySet_Contains(keys, key);
        if (in < 0 || (in && walk_push_key(heap, by_key, key) < 0))
            return -1;
    }
    return 0;
}

/* Ask a gate which of its keys are present, and push the positions they name. The
 * native gates state what their kinds' present() states. */
static int
walk_gate(Walk *s, const WGate *gate, WHeap *heap)
{
    PyObject *const *a = gate->op.arg;
    PyObject *by_key = gate->by_key;
    switch (gate->op.code) {
    case WGATE_COMMAND:
    case WGATE_MENTION: { /* CommandsKind.present, MentionsKind.present */
        PyObject *name = gate->op.code == WGATE_COMMAND ? walk_command(s) : walk_mention(s);
        if (name == NULL)
            return -1;
        return name == Py_None ? 0 : walk_push_named(s, heap, by_key, a[0], name);
    }
    case WGATE_MODEL: { /* PredictedKind.present (sure), LikeliestKind.present */
        const int read = walk_model(s);
        if (read < 0)
            return -1;
        PyObject *label = a[1] == Py_True ? s->confident : (read ? s->label : Py_None);
        if (label == Py_None)
            return 0;
        PyObject *keys = PyDict_GetItemWithError(a[0], label);
        if (keys == NULL)
            return PyErr_Occurred() ? -1 : 0;
        return walk_push_keys(heap, by_key, Py_NewRef(keys));
    }
    case WGATE_COVERED: { /* PhrasesKind.present */
        PyObject *args[2] = {s->words, a[0]};
        return walk_push_keys(heap, by_key, covered_keys(NULL, args, 2));
    }
    case WGATE_SUBSTRINGS: { /* SubstringsKind.present */
        PyObject *found = SubstringSet_find_lower((SubstringSet *)a[0], s->text);
        if (found == Py_None) {
            Py_DECREF(found);
            PyObject *lowered = walk_lowered(s);
            if (lowered == NULL)
                return -1;
            found = SubstringSet_find((SubstringSet *)a[0], lowered);
        }
        return walk_push_keys(heap, by_key, found);
    }
    case WGATE_STEMS: { /* StemsKind.present: the keys some token starts with */
        const int by_prefix = PySet_GET_SIZE(s->prefixes) <= PySet_GET_SIZE(a[0]);
        PyObject *side = by_prefix ? s->prefixes : a[0], *other = by_prefix ? a[0] : s->prefixes;
        PyObject *iter = PyObject_GetIter(side);
        if (iter == NULL)
            return -1;
        PyObject *key;
        while ((key = PyIter_Next(iter)) != NULL) {
            int in = PySet_Contains(other, key);
            if (in > 0)
                in = walk_push_key(heap, by_key, key);
            Py_DECREF(key);
            if (in < 0) {
                Py_DECREF(iter);
                return -1;
            }
        }
        Py_DECREF(iter);
        return PyErr_Occurred() ? -1 : 0;
    }
    case WGATE_LEAD_ENDINGS: { /* LeadEndingsKind.present */
        PyObject *content = walk_content(s, 1);
        if (content == NULL)
            return -1;
        if (PyTuple_GET_SIZE(content) == 0)
            return 0;
        PyObject *word = PyTuple_GET_ITEM(content, 0);
        const Py_ssize_t n = PyUnicode_GET_LENGTH(word);
        if (n == 0)
            return 0;
        PyObject *last = PyUnicode_Substring(word, n - 1, n);
        if (last == NULL)
            return -1;
        PyObject *group = PyDict_GetItemWithError(a[0], last);
        Py_DECREF(last);
        if (group == NULL)
            return PyErr_Occurred() ? -1 : 0;
        if (!PyTuple_Check(group)) {
            PyErr_SetString(PyExc_TypeError, "walk(): a lead_endings plan holds tuples");
            return -1;
        }
        Py_INCREF(word); /* (held: the content tuple may be replaced meanwhile) */
        for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(group); k++) {
            PyObject *ending = PyTuple_GET_ITEM(group, k);
            const Py_ssize_t ends = PyUnicode_Check(ending)
                                        ? PyUnicode_Tailmatch(word, ending, 0, PY_SSIZE_T_MAX, 1)
                                        : -1;
            if (ends < 0 || (ends && walk_push_key(heap, by_key, ending) < 0)) {
                Py_DECREF(word);
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_TypeError, "walk(): endings are str");
                return -1;
            }
        }
        Py_DECREF(word);
        return 0;
    }
    case WGATE_LEADING: { /* LeadingKind.present */
        PyObject *lead = walk_lead(s);
        if (lead == NULL)
            return -1;
        if (PySet_GET_SIZE(lead) == 0)
            return 0;
        Py_INCREF(lead);
        PyObject *iter = PyObject_GetIter(lead);
        Py_DECREF(lead);
        if (iter == NULL)
            return -1;
        PyObject *word;
        int r = 0;
        while (r == 0 && (word = PyIter_Next(iter)) != NULL) {
            PyObject *group = PyDict_GetItemWithError(a[0], word);
            Py_DECREF(word);
            if (group == NULL) {
                r = PyErr_Occurred() ? -1 : 0;
                continue;
            }
            if (!PyTuple_Check(group)) {
                PyErr_SetString(PyExc_TypeError, "walk(): a leading plan holds tuples");
                r = -1;
                break;
            }
            Py_INCREF(group);
            for (Py_ssize_t g = 0; r == 0 && g < PyTuple_GET_SIZE(group); g++) {
                PyObject *item = PyTuple_GET_ITEM(group, g);
                if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 2 ||
                    !PyTuple_Check(PyTuple_GET_ITEM(item, 1))) {
                    PyErr_SetString(PyExc_TypeError, "walk(): a leading plan item is (key, words)");
                    r = -1;
                    break;
                }
                PyObject *key = PyTuple_GET_ITEM(item, 0), *words = PyTuple_GET_ITEM(item, 1);
                const Py_ssize_t nw = PyTuple_GET_SIZE(words);
                if (nw == 1) {
                    r = walk_push_key(heap, by_key, key);
                    continue;
                }
                PyObject *content = walk_content(s, nw);
                if (content == NULL) {
                    r = -1;
                    break;
                }
                if (PyTuple_GET_SIZE(content) < nw)
                    continue;
                Py_INCREF(content);
                int all = 1;
                for (Py_ssize_t k = 1; all && k < nw; k++) {
                    /* (any hit of the word, exact or by typo: present() reads no typo switch) */
                    const int hit = walk_word_hit(s, PyTuple_GET_ITEM(words, k), PyTuple_GET_ITEM(content, k));
                    if (hit == -2)
                        r = -1;
                    all = hit >= 0;
                }
                Py_DECREF(content);
                if (r == 0 && all)
                    r = walk_push_key(heap, by_key, key);
            }
            Py_DECREF(group);
        }
        Py_DECREF(iter);
        return r < 0 || PyErr_Occurred() ? -1 : 0;
    }
    default: { /* WGATE_PYTHON: the kind's present(view, plan) */
        PyObject *view = walk_view(s);
        if (view == NULL)
            return -1;
        PyObject *args[2] = {view, a[1]};
        return walk_push_keys(heap, by_key, PyObject_Vectorcall(a[0], args, 2, NULL));
    }
    }
}

/* RuleMatch(rule, label, keyword, fuzzy, context, extra); steals `extra`. */
static PyObject *
walk_match(Walk *s, Py_ssize_t index, PyObject *keyword, int fuzzy, PyObject *context,
           PyObject *extra)
{
    PyTypeObject *type = s->w->match_type;
    PyObject *rule = PyLong_FromSsize_t(index);
    PyObject *out = rule == NULL ? NULL : type->tp_alloc(type, 6);
    if (out == NULL) {
        Py_XDECREF(rule);
        Py_DECREF(extra);
        return NULL;
    }
    PyTuple_SET_ITEM(out, 0, rule);
    PyTuple_SET_ITEM(out, 1, Py_NewRef(s->w->rules[index].label));
    PyTuple_SET_ITEM(out, 2, Py_NewRef(keyword));
    PyTuple_SET_ITEM(out, 3, Py_NewRef(fuzzy ? Py_True : Py_False));
    PyTuple_SET_ITEM(out, 4, Py_NewRef(context));
    PyTuple_SET_ITEM(out, 5, extra);
    return out;
}

static PyObject *walker_run(Walker *self, Walk *sp, PyObject *const *hits, Py_ssize_t n_hits);

PyDoc_STRVAR(Walker_walk_doc,
"walk(text, visible, contexts, hits, signal_hits, corrected, ids, /) -> RuleMatch\n--\n\n"
"The first rule that holds for a prompt (the default RuleMatch when none does), as\n"
"CompiledRules._match_view's loop finds it: ``hits`` the keyword entries (rank, fuzzy,\n"
"position, rule, ...) in rank order, ``signal_hits`` (words, stems, hitting tokens)\n"
"and ``ids`` from the scan, ``corrected`` the keywords read by typo.");

static PyObject *
Walker_walk(Walker *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (self->held == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "walk(): the walker was cleared");
        return NULL;
    }
    if (nargs != 7 || !PyUnicode_Check(args[0]) || !PyUnicode_Check(args[1]) ||
        !PyList_Check(args[3]) || !PyTuple_Check(args[4]) || PyTuple_GET_SIZE(args[4]) != 3 ||
        !PyAnySet_Check(PyTuple_GET_ITEM(args[4], 0)) ||
        !PyAnySet_Check(PyTuple_GET_ITEM(args[4], 1)) ||
        !PyDict_Check(PyTuple_GET_ITEM(args[4], 2)) ||
        (args[5] != Py_None && !PyAnySet_Check(args[5])) ||
        (args[6] != Py_None && !PyBytes_Check(args[6]))) {
        PyErr_SetString(PyExc_TypeError,
                        "walk() takes the text, the visible text, the contexts, a list of hits, "
                        "(words, stems, hitting), a set or None and bytes or None");
        return NULL;
    }
    PyObject *hits = args[3];
    Walk s = {self, args[0], args[1], args[2], args[4], PyTuple_GET_ITEM(args[4], 0),
              PyTuple_GET_ITEM(args[4], 1), PyTuple_GET_ITEM(args[4], 2), args[5], args[6],
              NULL, -1, NULL, NULL, 0, NULL, NULL, 0.0, Py_None, NULL, 0, NULL, NULL, NULL,
              NULL, 0};
    /* (a tuple of the hits: the walk holds them while Python kinds run) */
    PyObject *held = PyList_AsTuple(hits);
    if (held == NULL)
        return NULL;
    Py_INCREF(s.signal_hits);
    PyObject *out = walker_run(self, &s, &PyTuple_GET_ITEM(held, 0), PyTuple_GET_SIZE(held));
    Py_DECREF(held);
    return out;
}

/* The walk itself (see Walker_walk): `hits` the keyword entries in rank order (borrowed);
 * releases the walk's state. */
static PyObject *
walker_run(Walker *self, Walk *sp, PyObject *const *hits, Py_ssize_t n_hits)
{
    Walk s = *sp;
    WHeap heap;
    heap.a = heap.small;
    heap.n = 0;
    heap.cap = (Py_ssize_t)(sizeof(heap.small) / sizeof(heap.small[0]));
    PyObject *out = NULL;
    for (Py_ssize_t u = 0; u < self->nungated; u++) { /* (ascending: already a heap) */
        if (wheap_push(&heap, self->ungated[u]) < 0)
            goto done;
    }
    Py_ssize_t h = 0, g = 0, last = -1;
    Py_ssize_t gate_rank = self->ngates ? self->gates[0].first_rank : WALK_NEVER;
    for (;;) {
        Py_ssize_t hit_rank = WALK_PAST;
        PyObject *entry = NULL;
        if (h < n_hits) {
            entry = hits[h];
            if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) < 4) {
                PyErr_SetString(PyExc_TypeError, "walk(): a hit is (rank, fuzzy, position, rule, ...)");
                goto done;
            }
            hit_rank = PyLong_AsSsize_t(PyTuple_GET_ITEM(entry, 0));
            if (hit_rank == -1 && PyErr_Occurred())
                goto done;
        }
        Py_ssize_t plan_rank = heap.n ? self->plan_rank[heap.a[0]] : WALK_PAST;
        while (gate_rank <= hit_rank && gate_rank <= plan_rank) {
            if (walk_gate(&s, &self->gates[g], &heap) < 0)
                goto done;
            plan_rank = heap.n ? self->plan_rank[heap.a[0]] : WALK_PAST;
            g++;
            gate_rank = g < self->ngates ? self->gates[g].first_rank : WALK_NEVER;
        }
        Py_ssize_t index;
        if (hit_rank < plan_rank) {
            index = PyLong_AsSsize_t(PyTuple_GET_ITEM(entry, 3));
            if (index < 0 || index >= self->nrules) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_ValueError, "walk(): a hit names no rule");
                goto done;
            }
            h++;
        }
        else if (heap.n) {
            const Py_ssize_t at = wheap_pop(&heap);
            if (at == last) /* (a rule two of its gate's keys name) */
                continue;
            last = at;
            entry = NULL;
            index = self->plan_index[at];
        }
        else {
            break;
        }
        const WRule *rule = &self->rules[index];
        PyObject *context = Py_None;
        const Py_ssize_t nwanted = PyTuple_GET_SIZE(rule->contexts);
        if (nwanted) {
            context = NULL;
            for (Py_ssize_t k = 0; k < nwanted; k++) {
                const int in = PySequence_Contains(s.contexts, PyTuple_GET_ITEM(rule->contexts, k));
                if (in < 0)
                    goto done;
                if (in) {
                    context = PyTuple_GET_ITEM(rule->contexts, k);
                    break;
                }
            }
            if (context == NULL)
                continue;
        }
        PyObject *extra = PyTuple_New(rule->nops);
        if (extra == NULL)
            goto done;
        int holds = 1;
        for (Py_ssize_t k = 0; k < rule->nops; k++) {
            PyObject *evidence = walk_op(&s, &rule->ops[k]);
            if (evidence == NULL) {
                Py_DECREF(extra);
                goto done;
            }
            if (evidence == Py_None) {
                Py_DECREF(evidence);
                holds = 0;
                break;
            }
            PyTuple_SET_ITEM(extra, k, evidence);
        }
        if (!holds) {
            Py_DECREF(extra);
            continue;
        }
        if (entry == NULL) {
            out = walk_match(&s, index, Py_None, 0, context, extra);
            goto done;
        }
        const Py_ssize_t pos = PyLong_AsSsize_t(PyTuple_GET_ITEM(entry, 2));
        const int fuzzy = PyObject_IsTrue(PyTuple_GET_ITEM(entry, 1));
        if (pos < 0 || pos >= PyTuple_GET_SIZE(rule->keywords) || fuzzy < 0) {
            Py_DECREF(extra);
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "walk(): a hit names no keyword of its rule");
            goto done;
        }
        out = walk_match(&s, index, PyTuple_GET_ITEM(rule->keywords, pos), fuzzy, context, extra);
        goto done;
    }
    out = Py_NewRef(self->default_match);
done:
    if (heap.a != heap.small)
        PyMem_Free(heap.a);
    walk_release(&s);
    return out;
}

/* Whether entry `a` is better evidence than `b` for one rule (engine._fold_entries'
 * `entry < held`: (fuzzy, position, rule) after the shared rank). */
static int
walk_better(PyObject *a, PyObject *b, int *failed)
{
    for (Py_ssize_t k = 1; k < 4; k++) {
        const Py_ssize_t x = PyLong_AsSsize_t(PyTuple_GET_ITEM(a, k));
        const Py_ssize_t y = PyLong_AsSsize_t(PyTuple_GET_ITEM(b, k));
        if ((x == -1 || y == -1) && PyErr_Occurred()) {
            *failed = 1;
            return 0;
        }
        if (x != y)
            return x < y;
    }
    return 0;
}

PyDoc_STRVAR(Walker_match_doc,
"match(text, contexts, /) -> RuleMatch | None\n--\n\n"
"CompiledRules._match_view for a text of at most LARGE_TEXT visible characters, in\n"
"one call: the visible text, the verifying scan (new tokens near a keyword, word or\n"
"stem handed to the engine's resolver), the best entry per rule and the keywords read\n"
"by typo, then walk(). None when the Python path must take the text (a longer one).");

static PyObject *
Walker_match(Walker *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyUnicode_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "match() takes a str and the contexts");
        return NULL;
    }
    if (self->held == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "match(): the walker was cleared");
        return NULL;
    }
    if (self->scan == NULL) {
        PyErr_SetString(PyExc_TypeError, "match(): this walker has no scan");
        return NULL;
    }
    PyObject *text = args[0];
    PyObject *visible;
    if (!self->ignore_code) {
        visible = Py_NewRef(text);
    }
    else {
        PyObject *signs = code_signs(NULL, text);
        if (signs == NULL)
            return NULL;
        const long sign = PyLong_AsLong(signs);
        Py_DECREF(signs);
        /* (fenced code or a URL: Python blanks them first, as visible_text does) */
        visible = sign & 3 ? PyObject_CallOneArg(self->py_visible_text, text)
                           : blank_code_spans(NULL, text);
        if (visible == NULL)
            return NULL;
        if (!PyUnicode_Check(visible)) {
            Py_DECREF(visible);
            PyErr_SetString(PyExc_TypeError, "match(): visible_text gave no str");
            return NULL;
        }
    }
    if (PyUnicode_GET_LENGTH(visible) > self->large_text) {
        Py_DECREF(visible);
        Py_RETURN_NONE; /* piece by piece, in Python */
    }
    PyObject *out = NULL, *found = NULL, *unknown = NULL, *ids = Py_None;
    HitLog log;
    hit_log_init(&log);
    PyObject *entry_lists = PyList_New(0);
    PyObject *words = PySet_New(NULL), *prefixes = PySet_New(NULL), *hitting = PyDict_New();
    PyObject *corrected = self->gather_corrected ? PySet_New(NULL) : Py_NewRef(Py_None);
    /* per rule rank: its best entry, and the ranks that have one; on the stack for a pack
     * of up to MATCH_STACK_RULES rules (a calloc a prompt was a good share of its
     * instruction-cache misses) */
    PyObject *best_small[MATCH_STACK_RULES + 1];
    Py_ssize_t ranks_small[MATCH_STACK_RULES + 1];
    const int on_stack = self->nrules <= MATCH_STACK_RULES;
    PyObject **best = on_stack ? best_small
                               : PyMem_Calloc((size_t)self->nrules + 1, sizeof(PyObject *));
    Py_ssize_t *ranks =
        on_stack ? ranks_small : PyMem_Malloc(((size_t)self->nrules + 1) * sizeof(Py_ssize_t));
    if (on_stack)
        memset(best_small, 0, ((size_t)self->nrules + 1) * sizeof(PyObject *));
    Py_ssize_t nbest = 0;
    if (entry_lists == NULL || words == NULL || prefixes == NULL || hitting == NULL ||
        corrected == NULL || best == NULL || ranks == NULL) {
        if (best == NULL || ranks == NULL)
            PyErr_NoMemory();
        goto done;
    }
    {
        PyObject *fold_args[6] = {visible, entry_lists, words, prefixes, hitting, self->features};
        Py_BEGIN_CRITICAL_SECTION(self->scan);
        found = fold_logged((TokenCodes *)self->scan, fold_args, self->features ? 6 : 5, &log);
        Py_END_CRITICAL_SECTION();
        if (found == NULL)
            goto done;
        if (self->features != NULL) {
            if (!PyTuple_Check(found) || PyTuple_GET_SIZE(found) != 2) {
                PyErr_SetString(PyExc_TypeError, "match(): fold gave no (unknown, ids)");
                goto done;
            }
            unknown = PyTuple_GET_ITEM(found, 0);
            ids = PyTuple_GET_ITEM(found, 1);
        }
        else {
            unknown = found;
        }
        if (PyList_Check(unknown) && PyList_GET_SIZE(unknown) > 0) {
            /* the new tokens near a keyword, word or stem: resolved by the engine */
            PyObject *resolve_args[5] = {unknown, entry_lists, words, prefixes, hitting};
            PyObject *done_ = PyObject_Vectorcall(self->resolve, resolve_args, 5, NULL);
            if (done_ == NULL)
                goto done;
            Py_DECREF(done_);
        }
    }
    /* the best entry per rule (keyed by rank), and the keywords read by typo */
    for (Py_ssize_t l = 0; l < PyList_GET_SIZE(entry_lists); l++) {
        PyObject *entries = PyList_GET_ITEM(entry_lists, l);
        if (!PyTuple_Check(entries)) {
            PyErr_SetString(PyExc_TypeError, "match(): entries are tuples");
            goto done;
        }
        for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(entries); k++) {
            PyObject *entry = PyTuple_GET_ITEM(entries, k);
            if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) < 4) {
                PyErr_SetString(PyExc_TypeError, "match(): an entry is (rank, fuzzy, position, rule, ...)");
                goto done;
            }
            const Py_ssize_t rank = PyLong_AsSsize_t(PyTuple_GET_ITEM(entry, 0));
            if (rank < 0 || rank >= self->nrules) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_ValueError, "match(): an entry's rank is past the rules");
                goto done;
            }
            int failed = 0;
            if (best[rank] == NULL) {
                best[rank] = entry;
                ranks[nbest++] = rank;
            }
            else if (walk_better(entry, best[rank], &failed)) {
                best[rank] = entry;
            }
            if (failed)
                goto done;
            const int fuzzy = PyObject_IsTrue(PyTuple_GET_ITEM(entry, 1));
            if (fuzzy < 0)
                goto done;
            if (fuzzy && corrected != Py_None) {
                const Py_ssize_t index = PyLong_AsSsize_t(PyTuple_GET_ITEM(entry, 3));
                const Py_ssize_t pos = PyLong_AsSsize_t(PyTuple_GET_ITEM(entry, 2));
                if (index < 0 || index >= self->nrules || pos < 0 ||
                    pos >= PyTuple_GET_SIZE(PyTuple_GET_ITEM(self->lowered_keywords, index))) {
                    if (!PyErr_Occurred())
                        PyErr_SetString(PyExc_ValueError, "match(): an entry names no keyword");
                    goto done;
                }
                PyObject *lowered = PyTuple_GET_ITEM(PyTuple_GET_ITEM(self->lowered_keywords, index), pos);
                if (PySet_Add(corrected, lowered) < 0)
                    goto done;
            }
        }
    }
    /* in rank order: an insertion sort of the (few) ranks hit, or qsort */
    if (nbest > 16)
        qsort(ranks, (size_t)nbest, sizeof(Py_ssize_t), walk_cmp_size);
    for (Py_ssize_t a = 1; nbest <= 16 && a < nbest; a++) {
        const Py_ssize_t v = ranks[a];
        Py_ssize_t b = a - 1;
        while (b >= 0 && ranks[b] > v) {
            ranks[b + 1] = ranks[b];
            b--;
        }
        ranks[b + 1] = v;
    }
    {
        PyObject *small[64];
        PyObject **hits = nbest <= 64 ? small : PyMem_Malloc((size_t)nbest * sizeof(PyObject *));
        if (hits == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t a = 0; a < nbest; a++)
            hits[a] = best[ranks[a]];
        /* every entry is held by entry_lists until the walk ends */
        Walk w = {self, text, visible, args[1], NULL, words, prefixes, hitting, corrected, ids,
                  NULL, -1, NULL, NULL, 0, NULL, NULL, 0.0, Py_None, NULL, 0, NULL, NULL, NULL,
                  &log, 0};
        out = walker_run(self, &w, hits, nbest);
        if (hits != small)
            PyMem_Free(hits);
    }
done:
    hit_log_free(&log);
    if (!on_stack) {
        PyMem_Free(best);
        PyMem_Free(ranks);
    }
    Py_XDECREF(found);
    Py_XDECREF(entry_lists);
    Py_XDECREF(words);
    Py_XDECREF(prefixes);
    Py_XDECREF(hitting);
    Py_XDECREF(corrected);
    Py_DECREF(visible);
    return out;
}

static PyMethodDef Walker_methods[] = {
    {"walk", (PyCFunction)(void (*)(void))Walker_walk, METH_FASTCALL, Walker_walk_doc},
    {"match", (PyCFunction)(void (*)(void))Walker_match, METH_FASTCALL, Walker_match_doc},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot Walker_slots[] = {
    {Py_tp_dealloc, Walker_dealloc},
    {Py_tp_traverse, Walker_traverse},
    {Py_tp_clear, Walker_clear},
    {Py_tp_doc, (void *)Walker_doc},
    {Py_tp_methods, Walker_methods},
    {Py_tp_new, Walker_new},
    {0, NULL},
};

static PyType_Spec Walker_spec = {
    .name = SMISTA_SPEEDUPS_NAME ".Walker",
    .basicsize = sizeof(Walker),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_HAVE_GC,
    .slots = Walker_slots,
};

/* {name: code} of the walker's ops and gates, for smista.core.walk. */
static int
walker_add_codes(PyObject *module, const char *attr, const char *const *names, int count)
{
    PyObject *codes = PyDict_New();
    if (codes == NULL)
        return -1;
    for (int k = 0; k < count; k++) {
        PyObject *code = PyLong_FromLong(k);
        if (code == NULL || PyDict_SetItemString(codes, names[k], code) < 0) {
            Py_XDECREF(code);
            Py_DECREF(codes);
            return -1;
        }
        Py_DECREF(code);
    }
    const int r = PyModule_AddObjectRef(module, attr, codes);
    Py_DECREF(codes);
    return r;
}

static PyMethodDef module_methods[] = {
    {"hash_token", (PyCFunction)hash_token, METH_O, hash_token_doc},
    {"split_count", (PyCFunction)split_count, METH_O, split_count_doc},
    {"tokens", (PyCFunction)tokens, METH_O, tokens_doc},
    {"lower", (PyCFunction)lower_text, METH_O, lower_doc_module},
    {"count_newlines", (PyCFunction)count_newlines, METH_O, count_newlines_doc},
    {"softmax_top", (PyCFunction)(void (*)(void))softmax_top, METH_FASTCALL, softmax_top_doc},
    {"shown_probability", (PyCFunction)(void (*)(void))shown_probability_py, METH_FASTCALL,
     shown_probability_doc},
    {"blank_code_spans", (PyCFunction)blank_code_spans, METH_O, blank_code_spans_doc},
    {"non_ascii", (PyCFunction)non_ascii, METH_O, non_ascii_doc},
    {"code_signs", (PyCFunction)code_signs, METH_O, code_signs_doc},
    {"covered_keys", (PyCFunction)(void (*)(void))covered_keys, METH_FASTCALL, covered_keys_doc},
    {NULL, NULL, 0, NULL},
};

/* -- process-wide tables and hash key ------------------------------------------------ */

/* From 3.13 (PyMutex) a lock guards the first fill, so interpreters with
 * their own GIL and free-threaded builds may load the module; before, the
 * GIL that every interpreter allowed to load it shares does. */
#if PY_VERSION_HEX >= 0x030D0000
#define SMISTA_PROCESS_LOCK 1
static PyMutex process_lock;
#endif
static int process_ready = 0; /* LOWER, BMP_ALNUM and the hash key are set */

/* Derive the hash key from 16 random bytes. */
static void
set_seed(const unsigned char *random16)
{
    memcpy(&SEED0, random16, 8);
    memcpy(&SEED1, random16 + 8, 8);
    SEED0 |= 1;
    SEED1 |= 1;
    POLY_R = (SEED0 * 0x9e3779b97f4a7c15ULL) | 1;
    /* the inverse of an odd number mod 2^64, by Newton's iteration */
    uint64_t inv = POLY_R;
    for (int k = 0; k < 6; k++)
        inv *= 2 - POLY_R * inv;
    POLY_RINV = inv;
}

/* Fill the tables and draw the hash key (os.urandom), once per process:
 * later execs (re-imports, other interpreters) keep the first key, so every
 * table and index in the process hashes alike. */
static int
init_process(void)
{
    /* drawn before taking the lock: no call into Python while holding it */
    PyObject *os = PyImport_ImportModule("os");
    if (os == NULL)
        return -1;
    PyObject *bytes = PyObject_CallMethod(os, "urandom", "i", 16);
    Py_DECREF(os);
    if (bytes == NULL)
        return -1;
    if (!PyBytes_Check(bytes) || PyBytes_GET_SIZE(bytes) != 16) {
        Py_DECREF(bytes);
        PyErr_SetString(PyExc_RuntimeError, "os.urandom gave no seed");
        return -1;
    }
#ifdef SMISTA_PROCESS_LOCK
    PyMutex_Lock(&process_lock);
#endif
    if (!process_ready) {
        init_tables();
        span_tables_init();
        set_seed((const unsigned char *)PyBytes_AS_STRING(bytes));
        process_ready = 1;
    }
#ifdef SMISTA_PROCESS_LOCK
    PyMutex_Unlock(&process_lock);
#endif
    Py_DECREF(bytes);
    return 0;
}

/* -- the module ---------------------------------------------------------------------- */

static int
speedups_exec(PyObject *module)
{
    if (init_process() < 0)
        return -1;
    SpeedupsState *state = speedups_state(module);
    state->TokenCodesType =
        (PyTypeObject *)PyType_FromModuleAndSpec(module, &TokenCodes_spec, NULL);
    if (state->TokenCodesType == NULL)
        return -1;
    if (PyModule_AddType(module, state->TokenCodesType) < 0)
        return -1;
    state->VariantIndexType =
        (PyTypeObject *)PyType_FromModuleAndSpec(module, &VariantIndex_spec, NULL);
    if (state->VariantIndexType == NULL)
        return -1;
    if (PyModule_AddType(module, state->VariantIndexType) < 0)
        return -1;
    state->MarkerTableType =
        (PyTypeObject *)PyType_FromModuleAndSpec(module, &MarkerTable_spec, NULL);
    if (state->MarkerTableType == NULL)
        return -1;
    if (PyModule_AddType(module, state->MarkerTableType) < 0)
        return -1;
    state->SubstringSetType =
        (PyTypeObject *)PyType_FromModuleAndSpec(module, &SubstringSet_spec, NULL);
    if (state->SubstringSetType == NULL)
        return -1;
    if (PyModule_AddType(module, state->SubstringSetType) < 0)
        return -1;
    state->FeatureTableType =
        (PyTypeObject *)PyType_FromModuleAndSpec(module, &FeatureTable_spec, NULL);
    if (state->FeatureTableType == NULL)
        return -1;
    if (PyModule_AddType(module, state->FeatureTableType) < 0)
        return -1;
    state->WalkerType = (PyTypeObject *)PyType_FromModuleAndSpec(module, &Walker_spec, NULL);
    if (state->WalkerType == NULL)
        return -1;
    if (PyModule_AddType(module, state->WalkerType) < 0)
        return -1;
    if (walker_add_codes(module, "WALK_OPS", WOP_NAMES, WOP_COUNT) < 0 ||
        walker_add_codes(module, "GATE_OPS", WGATE_NAMES, WGATE_COUNT) < 0)
        return -1;
    if (PyModule_AddStringConstant(module, "SOURCE_DIGEST", SMISTA_SOURCE_DIGEST) < 0)
        return -1;
    return 0;
}

static int
speedups_traverse(PyObject *module, visitproc visit, void *arg)
{
    SpeedupsState *state = speedups_state(module);
    Py_VISIT(state->TokenCodesType);
    Py_VISIT(state->VariantIndexType);
    Py_VISIT(state->MarkerTableType);
    Py_VISIT(state->SubstringSetType);
    Py_VISIT(state->FeatureTableType);
    Py_VISIT(state->WalkerType);
    return 0;
}

static int
speedups_clear(PyObject *module)
{
    SpeedupsState *state = speedups_state(module);
    Py_CLEAR(state->TokenCodesType);
    Py_CLEAR(state->VariantIndexType);
    Py_CLEAR(state->MarkerTableType);
    Py_CLEAR(state->SubstringSetType);
    Py_CLEAR(state->FeatureTableType);
    Py_CLEAR(state->WalkerType);
    return 0;
}

static void
speedups_free(void *module)
{
    (void)speedups_clear((PyObject *)module);
}

static PyModuleDef_Slot speedups_slots[] = {
    {Py_mod_exec, speedups_exec},
#if defined(Py_mod_multiple_interpreters) && defined(SMISTA_PROCESS_LOCK)
    /* 3.13+: the process-wide fill is locked, the types are per module */
    {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#elif defined(Py_mod_multiple_interpreters)
    /* 3.12: no public lock for the process-wide fill, so only interpreters
     * sharing the main GIL may load the module */
    {Py_mod_multiple_interpreters, Py_MOD_MULTIPLE_INTERPRETERS_SUPPORTED},
#endif
#ifdef Py_mod_gil
    {Py_mod_gil, Py_MOD_GIL_NOT_USED}, /* see "State and threads" at the top */
#endif
    {0, NULL},
};

static struct PyModuleDef speedups_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = SMISTA_SPEEDUPS_NAME,
    .m_doc = "Compiled hot path of smista's rule matcher (optional; see smista.core.engine).",
    .m_size = sizeof(SpeedupsState),
    .m_methods = module_methods,
    .m_slots = speedups_slots,
    .m_traverse = speedups_traverse,
    .m_clear = speedups_clear,
    .m_free = speedups_free,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    return PyModuleDef_Init(&speedups_module);
}
