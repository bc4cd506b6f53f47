/* tests/unit/json_check.h — a strict RFC 8259 JSON checker, header-only
 * (static functions): included by tests/unit/test_audit_report.c and by
 * tests/jsoncheck.c, the command tests/cli.sh compiles to check --stats
 * files (make test has no python).  Input: bytes; output: NULL when they
 * are exactly one JSON value with whitespace around, else the reason and
 * the offset.  Strings must be valid UTF-8 (no overlong forms or
 * surrogates), numbers follow the JSON grammar (no NaN, inf, leading
 * zeros, "1." or ".5"), no trailing commas, nesting at most 64 deep.
 */
#ifndef TALLY_JSON_CHECK_H
#define TALLY_JSON_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

typedef struct Json {
    const unsigned char *p, *end;
    int depth;
    const char *why;                /* first error */
    const unsigned char *at;
} Json;

static bool j_fail(Json *j, const char *why)
{
    if (!j->why)
        j->why = why, j->at = j->p;
    return false;
}

static void j_ws(Json *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static bool j_lit(Json *j, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n) != 0)
        return j_fail(j, "bad literal");
    j->p += n;
    return true;
}

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* one UTF-8 sequence at j->p (a lead byte ≥ 0x80) */
static bool j_utf8(Json *j)
{
    unsigned c = *j->p;
    int len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (!len || j->end - j->p < len)
        return j_fail(j, "bad UTF-8 lead byte");
    unsigned cp = c & (0x7f >> len);
    for (int i = 1; i < len; i++) {
        if ((j->p[i] & 0xc0) != 0x80)
            return j_fail(j, "bad UTF-8 continuation");
        cp = cp << 6 | (j->p[i] & 0x3f);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return j_fail(j, "overlong or surrogate UTF-8");
    j->p += len;
    return true;
}

static bool j_string(Json *j)
{
    if (j->p >= j->end || *j->p != '"')
        return j_fail(j, "string expected");
    j->p++;
    while (j->p < j->end && *j->p != '"') {
        unsigned c = *j->p;
        if (c < 0x20)
            return j_fail(j, "control character in string");
        if (c == '\\') {
            if (j->end - j->p < 2)
                return j_fail(j, "escape at end");
            unsigned e = j->p[1];
            if (e == 'u') {
                if (j->end - j->p < 6)
                    return j_fail(j, "short \\u");
                for (int i = 2; i < 6; i++)
                    if (hexval(j->p[i]) < 0)
                        return j_fail(j, "bad \\u digit");
                j->p += 6;
            } else if (strchr("\"\\/bfnrt", (int)e) && e) {
                j->p += 2;
            } else {
                return j_fail(j, "bad escape");
            }
        } else if (c >= 0x80) {
            if (!j_utf8(j))
                return false;
        } else {
            j->p++;
        }
    }
    if (j->p >= j->end)
        return j_fail(j, "unterminated string");
    j->p++;
    return true;
}

static bool j_digits(Json *j)
{
    if (j->p >= j->end || *j->p < '0' || *j->p > '9')
        return j_fail(j, "digit expected");
    while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
        j->p++;
    return true;
}

static bool j_number(Json *j)
{
    if (*j->p == '-')
        j->p++;
    if (j->p < j->end && *j->p == '0')
        j->p++;
    else if (!j_digits(j))
        return false;
    if (j->p < j->end && *j->p == '.') {
        j->p++;
        if (!j_digits(j))
            return false;
    }
    if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
        j->p++;
        if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
            j->p++;
        if (!j_digits(j))
            return false;
    }
    return true;
}

static bool j_value(Json *j);

static bool j_members(Json *j, char close, bool object)
{
    if (++j->depth > 64)
        return j_fail(j, "too deep");
    j->p++;
    j_ws(j);
    if (j->p < j->end && *j->p == close) {
        j->p++;
        j->depth--;
        return true;
    }
    for (;;) {
        j_ws(j);
        if (object) {
            if (!j_string(j))
                return false;
            j_ws(j);
            if (j->p >= j->end || *j->p != ':')
                return j_fail(j, "':' expected");
            j->p++;
        }
        if (!j_value(j))
            return false;
        j_ws(j);
        if (j->p < j->end && *j->p == ',') {
            j->p++;
            continue;
        }
        if (j->p < j->end && *j->p == close) {
            j->p++;
            j->depth--;
            return true;
        }
        return j_fail(j, "',' or close expected");
    }
}

static bool j_value(Json *j)
{
    j_ws(j);
    if (j->p >= j->end)
        return j_fail(j, "value expected");
    switch (*j->p) {
    case '{': return j_members(j, '}', true);
    case '[': return j_members(j, ']', false);
    case '"': return j_string(j);
    case 't': return j_lit(j, "true");
    case 'f': return j_lit(j, "false");
    case 'n': return j_lit(j, "null");
    default:
        if (*j->p == '-' || (*j->p >= '0' && *j->p <= '9'))
            return j_number(j);
        return j_fail(j, "unexpected character");
    }
}

/* NULL if text[0..n) is exactly one JSON value, else why; *at = offset. */
static const char *json_check(const char *text, size_t n, size_t *at)
{
    Json j = {(const unsigned char *)text, (const unsigned char *)text + n, 0, NULL, NULL};
    bool ok = j_value(&j);
    j_ws(&j);
    if (ok && j.p != j.end)
        ok = j_fail(&j, "text after the value");
    if (at)
        *at = ok ? 0 : (size_t)(j.at - (const unsigned char *)text);
    return ok ? NULL : j.why;
}

#endif
