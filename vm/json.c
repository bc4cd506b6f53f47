/* vm/json.c — JSON strings for every writer of JSON (--stats, the
 * auditor's report).
 *
 * Input: any bytes (names come from modules, which may hold anything).
 * Output: one JSON string literal.  Invariant: the output is valid JSON
 * and valid UTF-8 whatever the input: quotes, backslashes and control
 * characters are escaped, and each byte that does not start a valid UTF-8
 * sequence becomes U+FFFD.
 */
#include "vm.h"

#include <string.h>

/* Length of the valid UTF-8 sequence at p (at most n bytes), 0 if none. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
    size_t len;
    uint32_t cp;
    if (p[0] < 0x80)
        return 1;
    if ((p[0] & 0xe0) == 0xc0)
        len = 2, cp = p[0] & 0x1f;
    else if ((p[0] & 0xf0) == 0xe0)
        len = 3, cp = p[0] & 0x0f;
    else if ((p[0] & 0xf8) == 0xf0)
        len = 4, cp = p[0] & 0x07;
    else
        return 0;
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (p[i] & 0x3f);
    }
    /* overlong forms, surrogates and values beyond U+10FFFF are not UTF-8 */
    static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min[len] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
        return 0;
    return len;
}

void vm_json_string(FILE *f, const char *s, size_t max)
{
    size_t n = s ? strnlen(s, max) : 0;
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', f);
    for (size_t i = 0; i < n;) {
        unsigned char c = p[i];
        if (c == '"' || c == '\\') {
            fputc('\\', f), fputc(c, f), i++;
        } else if (c == '\n') {
            fputs("\\n", f), i++;
        } else if (c == '\t') {
            fputs("\\t", f), i++;
        } else if (c < 0x20 || c == 0x7f) {
            fprintf(f, "\\u%04x", c), i++;
        } else {
            size_t k = utf8_len(p + i, n - i);
            if (k == 0) {
                fputs("\\ufffd", f);
                i++;
            } else {
                fwrite(p + i, 1, k, f);
                i += k;
            }
        }
    }
    fputc('"', f);
}
