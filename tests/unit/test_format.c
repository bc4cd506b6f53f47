/* tests/unit/test_format.c — the module formats: assembler, disassembler,
 * binary writer and reader.
 *
 * Round trips on texts covering every declaration and operand kind
 * (asm → write → read → write is byte-exact; dis(asm(x)) reassembles to the
 * same bytes and the same text), the reader against every truncation and
 * every single-byte corruption of a valid module (no crash; dis copes with
 * whatever it accepts), assembler error messages and line numbers, the
 * per-method source files (table, round trip, verifier range check) and
 * the source-annotated disassembly.
 * Needs only vm/module.c, asm.c, dis.c, load.c, write.c, verify*.c.
 */
#include "test.h"
#include "vm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every declaration kind; it also runs (see tests/fixtures/format/sample.tla). */
static const char sample[] =
    "module \"sample\"\n"
    "source \"sample.tl\"\n"
    "main main\n"
    "init globals$init\n"
    "global count int\n"
    "global names string[]\n"
    "native println_int (int) : void = builtin \"println_int\"\n"
    "native cbrt (float) : float = \"libm.so.6\" \"cbrt\"\n"
    "interface Named\n"
    "  methods Named.name\n"
    "end\n"
    "interface Shape extends Named\n"
    "  methods Shape.area, Shape.name\n"
    "end\n"
    "class Base implements Shape abstract\n"
    "  field id int\n"
    "  vtable Base.area, Base.name\n"
    "end\n"
    "class Rect extends Base\n"
    "  field w int\n"
    "  field h int\n"
    "  vtable Rect.area, Base.name\n"
    "end\n"
    "method Named.name (Named) : string owner Named abstract\n"
    "method Shape.area (Shape) : int owner Shape abstract\n"
    "method Shape.name (Shape) : string owner Shape abstract\n"
    "method Base.area (Base) : int owner Base abstract\n"
    "method Base.name (Base) : string owner Base\n"
    "  regs string\n"
    "  LDK r1, \"area\"\n"
    "  RET r1\n"
    "end\n"
    "method Rect.area (Rect) : int owner Rect\n"
    "  regs int, int\n"
    "  line 50\n"
    "  GETF r1, r0, Rect.w\n"
    "  GETF r2, r0, Rect.id   // inherited field through the subclass\n"
    "  MUL r1, r1, r2\n"
    "  RET r1\n"
    "end\n"
    "method globals$init () : void static\n"
    "  regs int\n"
    "  LDI r0, 0x7fffffffffffffff\n"
    "  STG count, r0\n"
    "  RETV\n"
    "end\n"
    "method main$1 (fn(int):int, int) : int lambda\n"
    "  caps int\n"
    "  regs int\n"
    "  LDCAP r2, 0\n"
    "  ADD r2, r2, r1\n"
    "  RET r2\n"
    "end\n"
    "method main () : void static\n"
    "  regs Rect, int, Shape, int, float, bool, fn(int):int, int, Object, Rect[]\n"
    "  line 60\n"
    "  NEW r0, Rect\n"
    "  MOV r2, r0\n"
    "  CALLI r3, r2, Shape.area\n"
    "  CALLV r3, r0, Rect.area\n"
    "  CALL r3, r0, Rect.area\n"
    "  CALLN _, r3, println_int\n"
    "  CLOS r6, r7, main$1\n"
    "  CALLF r1, r6\n"
    "  LDF r4, 27.0\n"
    "  CALLN r4, r4, cbrt\n"
    "  ISA r5, r8, Shape\n"
    "  CAST r0, r8, Rect\n"
    "  JF r5, done\n"
    "loop:\n"
    "  line 61\n"
    "  ADDK r1, r1, -3\n"
    "  JLTS r3, -2147483648, done\n"
    "  JGES r3, 2147483647, loop\n"
    "  LOOP r3, r7, loop\n"
    "  NEWA r9, r3, Rect[]\n"
    "  ALEN r3, r9\n"
    "  PUTF r0, Rect.h, r3\n"
    "  LDG r3, count\n"
    "done:\n"
    "  RETV\n"
    "end\n";

/* Literals: floats, ints, strings; pools pre-populated with duplicates. */
static const char literals[] =
    "module \"lits\"\n"
    "consts \"a\", \"a\", \"tab\\there\\n\\r\\\\ \\\"q\\\" \\0 \\x01\\x7f\\xff\"\n"
    "types int, int, float, int[], #1[], fn(int, #1):fn(float), (fn(int):int)[], void\n"
    "types fn():int[], fn(), fn()[], bool\n"
    "main f\n"
    "method f () : void static\n"
    "  regs int, float, #1, string, int[], #4, (fn(int):int)[], fn():int[], fn()[]\n"
    "  LDI r0, -9223372036854775808\n"
    "  LDI r0, 9223372036854775807\n"
    "  LDI r0, 0xffffffffffffffff\n"
    "  LDF r1, 0.1\n"
    "  LDF r1, -0.0\n"
    "  LDF r1, 1e300\n"
    "  LDF r1, 5e-324\n"
    "  LDF r1, 1.7976931348623157e308\n"
    "  LDF r1, inf\n"
    "  LDF r1, -inf\n"
    "  LDF r1, nan\n"
    "  LDF r1, 0.30000000000000004\n"
    "  LDK r3, \"a\"\n"
    "  LDK r3, #1\n"
    "  LDK r3, \"tab\\there\\n\\r\\\\ \\\"q\\\" \\0 \\x01\\x7f\\xff\"\n"
    "  LDK r3, \"new\"\n"
    "  line 3\n"
    "  line 4\n"
    "  NOP\n"
    "  line 4\n"
    "  NOP\n"
    "  RETV\n"
    "  line 9\n"
    "end\n";

/* Methods from several source files: the `files` table pre-populated with
 * a duplicate and the source itself (reachable only as `#N`), clauses in
 * any order, a path interned on first use, the source mapping to 0, and an
 * index out of range (assembles; the verifier rejects it). */
static const char files_text[] =
    "module \"multi\"\n"
    "source \"main.tl\"\n"
    "files \"lib.tl\", \"main.tl\", \"lib.tl\", \"dir/util \\\"q\\\".tl\"\n"
    "main main\n"
    "method a () : void static file \"lib.tl\"\n"
    "  line 3\n"
    "  RETV\n"
    "end\n"
    "method b () : void file #2 static\n"
    "  RETV\n"
    "end\n"
    "method c () : void static file \"dir/util \\\"q\\\".tl\"\n"
    "  RETV\n"
    "end\n"
    "method d () : void file \"new.tl\" static\n"
    "  RETV\n"
    "end\n"
    "method e () : void static file \"main.tl\"\n"
    "  RETV\n"
    "end\n"
    "method f () : void static file #3\n"
    "  RETV\n"
    "end\n"
    "method main () : void static\n"
    "  line 9\n"
    "  RETV\n"
    "end\n"
    "method g () : void static file #9\n"
    "  RETV\n"
    "end\n";

/* Interface-method maps: a bridge bound explicitly, an inherited entry and
 * an own entry that replaces it (the classes and methods of
 * tests/vm/imap_bridge.tla, trimmed). */
static const char imap_text[] =
    "module \"imap\"\n"
    "main main\n"
    "interface Named\n"
    "  methods Named.get\n"
    "end\n"
    "method Named.get (Named) : string owner Named abstract\n"
    "class Box\n"
    "  vtable Box.get\n"
    "end\n"
    "method Box.get (Box) : Object owner Box\n"
    "  regs Object\n"
    "  RET r1\n"
    "end\n"
    "class NamedBox extends Box implements Named\n"
    "  imap Named.get = NamedBox.get$Named   // before the vtable: any order\n"
    "  vtable Box.get, NamedBox.get$Named\n"
    "end\n"
    "method NamedBox.get$Named (NamedBox) : string owner NamedBox\n"
    "  regs Object, string\n"
    "  CALLV r1, r0, Box.get\n"
    "  CAST r2, r1, string\n"
    "  RET r2\n"
    "end\n"
    "class Sub extends NamedBox\n"
    "  vtable Box.get, NamedBox.get$Named\n"
    "end\n"
    "class Own extends NamedBox\n"
    "  vtable Box.get, NamedBox.get$Named, Own.get$Named\n"
    "  imap Named.get = Own.get$Named\n"
    "end\n"
    "method Own.get$Named (Own) : string owner Own\n"
    "  regs string\n"
    "  RET r1\n"
    "end\n"
    "method main () : void static\n"
    "  RETV\n"
    "end\n";

/* Raw `#N` indices out of range: assembles (the verifier rejects it). */
static const char raw[] =
    "main #7\n"
    "init #8\n"
    "global g #99\n"
    "class C extends #5 implements #6\n"
    "  field x #12\n"
    "  vtable #3, m\n"
    "  imap #70 = #71\n"
    "  imap m = #72\n"
    "end\n"
    "native n (#40) : #41 = builtin \"x\"\n"
    "method m (#20) : #21 owner #9\n"
    "  regs #30\n"
    "  JMP #100\n"
    "  LDK r0, #50\n"
    "  LDG r0, #51\n"
    "  GETF r0, r0, #52\n"
    "  CALL _, r0, #53\n"
    "  CALLN r0, r0, #54\n"
    "  NEW r0, #55\n"
    "  NEWA r0, r0, #56\n"
    "  RETV\n"
    "end\n"
    "method e () : void\n"
    "end\n";

static char *dis_text(const VmModule *m)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    vm_dis(m, f);
    fclose(f);
    return text;
}

static bool same_buf(const VmBuf *a, const VmBuf *b)
{
    return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

static void roundtrip(const char *name, const char *text)
{
    VmError err = {{0}};
    VmModule *m = vm_asm(text, strlen(text), name, &err);
    if (!m) {
        test_fail(__FILE__, __LINE__, "%s: %s", name, err.msg);
        return;
    }
    VmBuf b1 = {0}, b2 = {0}, b3 = {0};
    vm_module_write(m, &b1);
    VmModule *m2 = vm_module_read(b1.data, b1.len, &err);
    CHECK(m2 != NULL);
    if (!m2) {
        test_fail(__FILE__, __LINE__, "%s: %s", name, err.msg);
    } else {
        vm_module_write(m2, &b2);
        CHECK(same_buf(&b1, &b2));
    }
    char *t1 = dis_text(m);
    VmModule *m3 = vm_asm(t1, strlen(t1), "dis.tla", &err);
    if (!m3) {
        test_fail(__FILE__, __LINE__, "%s: reassembly: %s\n%s", name, err.msg, t1);
    } else {
        vm_module_write(m3, &b3);
        CHECK(same_buf(&b1, &b3));
        char *t3 = dis_text(m3);
        CHECK_STR(t3, t1);
        free(t3);
    }
    if (m2) {
        char *t2 = dis_text(m2);
        CHECK_STR(t2, t1);
        free(t2);
    }
    free(t1);
    vm_buf_free(&b1);
    vm_buf_free(&b2);
    vm_buf_free(&b3);
    vm_module_free(m);
    vm_module_free(m2);
    vm_module_free(m3);
}

TEST(format_roundtrip)
{
    roundtrip("sample.tla", sample);
    roundtrip("lits.tla", literals);
    roundtrip("raw.tla", raw);
    roundtrip("files.tla", files_text);
    roundtrip("imap.tla", imap_text);
    roundtrip("empty.tla", "");
}

TEST(format_imap)
{
    VmError err = {{0}};
    VmModule *m = vm_asm(imap_text, strlen(imap_text), "imap.tla", &err);
    CHECK(m != NULL);
    if (!m) {
        test_fail(__FILE__, __LINE__, "%s", err.msg);
        return;
    }
    /* classes: Named, Box, NamedBox, Sub, Own; methods in declaration order */
    CHECK_INT(m->classes[1].nimap, 0);
    CHECK_INT(m->classes[2].nimap, 1);
    CHECK_INT(m->classes[2].imap[0], 0);   /* Named.get */
    CHECK_INT(m->classes[2].imap[1], 2);   /* NamedBox.get$Named */
    CHECK_INT(m->classes[3].nimap, 0);
    CHECK_INT(m->classes[4].nimap, 1);
    CHECK_INT(m->classes[4].imap[1], 3);   /* Own.get$Named */
    CHECK(vm_verify(m, &err));
    /* the canonical text puts the entries after the vtable */
    char *t = dis_text(m);
    CHECK_CONTAINS(t, "class NamedBox extends Box implements Named\n"
                      "  vtable Box.get, NamedBox.get$Named\n"
                      "  imap Named.get = NamedBox.get$Named\n"
                      "end\n");
    CHECK_CONTAINS(t, "  imap Named.get = Own.get$Named\nend\n");
    free(t);
    /* an entry bound to a method outside the class's vtable is rejected */
    m->classes[4].imap[1] = 1;   /* Box.get: in the vtable, wrong signature */
    CHECK(!vm_verify(m, &err));
    CHECK_STR(err.msg, "imap: class Own: imap entry 0: Box.get does not match the signature of Named.get");
    vm_module_free(m);

    m = vm_asm(raw, strlen(raw), "raw.tla", &err);
    CHECK(m != NULL);
    if (m) {
        CHECK_INT(m->classes[0].nimap, 2);
        CHECK_INT(m->classes[0].imap[0], 70);
        CHECK_INT(m->classes[0].imap[3], 72);
        vm_module_free(m);
    }
}

TEST(format_asm_tables)
{
    VmError err;
    VmModule *m = vm_asm(sample, strlen(sample), "dir/sample.tla", &err);
    CHECK(m != NULL);
    if (!m)
        return;
    CHECK_STR(m->name, "sample");
    CHECK_STR(m->source, "sample.tl");
    CHECK_INT(m->nclasses, 4);
    CHECK_STR(m->classes[3].name, "Rect");
    CHECK_INT(m->classes[3].super, 2);
    CHECK(m->classes[1].flags & VM_C_INTERFACE);
    CHECK_INT(m->classes[1].nifaces, 1);
    CHECK_INT(m->classes[2].flags, VM_C_ABSTRACT);
    CHECK_INT(m->nfields, 3);
    CHECK_STR(m->fields[2].name, "h");
    CHECK_INT(m->fields[2].owner, 3);
    CHECK_INT(m->nmethods, 9);
    CHECK_STR(m->methods[m->main].name, "main");
    CHECK_STR(m->methods[m->init].name, "globals$init");
    const VmMethod *lam = &m->methods[7];
    CHECK_INT(lam->flags, VM_M_LAMBDA);
    CHECK_INT(lam->nparams, 2);
    CHECK_INT(lam->nregs, 3);
    CHECK_INT(lam->ncaps, 1);
    CHECK_INT(m->types[lam->regs[0]].kind, VM_T_FUNC);
    const VmMethod *ra = &m->methods[5];
    CHECK_INT(ra->code[1].c, 0);   /* Rect.id is Base's field 0 */
    CHECK_INT(ra->nlines, 1);
    CHECK_STR(m->natives[1].lib, "libm.so.6");
    CHECK_STR(m->natives[0].lib, "");
    const VmMethod *mn = &m->methods[8];
    CHECK_INT(mn->code[5].a, -1);  /* CALLN _ */
    CHECK_INT(mn->code[12].op, VM_OP_JF);
    CHECK_INT(mn->code[12].b, 21);  /* done: */
    CHECK_INT(mn->code[14].b, INT32_MIN);
    CHECK_INT(mn->code[15].b, INT32_MAX);
    CHECK_INT(mn->code[15].c, 13);  /* loop: */
    vm_module_free(m);

    /* defaults: module name from the file stem, source from the file */
    static const char prog[] = "method f () : void\n  RETV\nend\n";
    m = vm_asm(prog, strlen(prog), "x/prog.tla", &err);
    CHECK(m != NULL);
    if (m) {
        CHECK_STR(m->name, "prog");
        CHECK_STR(m->source, "x/prog.tla");
        CHECK_INT(m->main, VM_NONE);
        vm_module_free(m);
    }

    /* line directives: several at one pc, the last wins */
    m = vm_asm(literals, strlen(literals), "l.tla", &err);
    CHECK(m != NULL);
    if (m) {
        const VmMethod *f = &m->methods[0];
        CHECK_INT(f->nlines, 3);
        CHECK_INT(f->lines[0].line, 4);
        CHECK_INT(f->lines[1].pc, f->lines[0].pc + 1);
        CHECK_INT(f->lines[2].pc, f->ncode);
        CHECK_INT(m->nconsts, 4);
        CHECK_INT(f->code[0].k.i, INT64_MIN);
        CHECK_INT(f->code[2].k.i, -1);
        CHECK(signbit(f->code[4].k.f));
        CHECK(isnan(f->code[10].k.f));
        CHECK_INT(f->code[12].b, 0);  /* "a" is the first of the duplicates */
        CHECK_INT(f->code[13].b, 1);
        CHECK_INT(m->consts[2].len, 21);
        vm_module_free(m);
    }
}

static VmBuf text_bytes(const char *text)
{
    VmBuf b = {0};
    VmError err;
    VmModule *m = vm_asm(text, strlen(text), "sample.tla", &err);
    if (m)
        vm_module_write(m, &b);
    vm_module_free(m);
    return b;
}

static VmBuf sample_bytes(void)
{
    return text_bytes(sample);
}

/* Every proper prefix of a valid module is rejected with "bad module: ". */
static void check_truncations(const VmBuf *b)
{
    VmError err;
    for (size_t n = 0; n < b->len; n++) {
        uint8_t *copy = malloc(n ? n : 1);  /* exact size, so ASan sees overreads */
        memcpy(copy, b->data, n);
        VmModule *m = vm_module_read(copy, n, &err);
        if (m) {
            test_fail(__FILE__, __LINE__, "truncation to %zu bytes accepted", n);
            vm_module_free(m);
        } else if (strncmp(err.msg, "bad module: ", 12) != 0) {
            test_fail(__FILE__, __LINE__, "message \"%s\"", err.msg);
        }
        free(copy);
    }
}

TEST(format_reader_rejects)
{
    VmBuf b = sample_bytes();
    CHECK(b.len > 100);
    VmError err;
    check_truncations(&b);
    VmBuf fb = text_bytes(files_text);
    CHECK(fb.len > 50);
    check_truncations(&fb);
    vm_buf_free(&fb);
    VmBuf ib = text_bytes(imap_text);
    CHECK(ib.len > 50);
    check_truncations(&ib);
    vm_buf_free(&ib);
    VmModule *m = vm_module_read(b.data, b.len - 1, &err);
    CHECK(!m);
    CHECK_CONTAINS(err.msg, "bad module: truncated in header");

    for (int i = 0; i < 4; i++) {
        b.data[i] ^= 0x20;
        m = vm_module_read(b.data, b.len, &err);
        CHECK(!m);
        CHECK_STR(err.msg, "bad module: not a tally module (bad magic)");
        b.data[i] ^= 0x20;
    }
    b.data[4] = VM_FORMAT_VERSION + 1;
    m = vm_module_read(b.data, b.len, &err);
    CHECK(!m);
    CHECK_CONTAINS(err.msg, "unsupported format version 4 (expected 3)");
    b.data[4] = VM_FORMAT_VERSION;

    vm_buf_put(&b, "", 1);
    m = vm_module_read(b.data, b.len, &err);
    CHECK(!m);
    CHECK_STR(err.msg, "bad module: 1 trailing bytes after the header");
    b.len--;
    m = vm_module_read(b.data, b.len, &err);
    CHECK(m != NULL);
    vm_module_free(m);
    vm_buf_free(&b);
}

TEST(format_reader_corruption)
{
    /* every single-byte change either fails cleanly or gives a module the
     * writer, verifier and disassemblers handle (under ASan: no bad access);
     * the files module's paths do not exist, so vm_dis_source only tries */
    VmBuf bufs[3] = {sample_bytes(), text_bytes(files_text), text_bytes(imap_text)};
    FILE *null = fopen("/dev/null", "w");
    static const uint8_t xors[] = {0x01, 0x80, 0xff, 0x7f};
    for (int which = 0; which < 3; which++) {
        VmBuf b = bufs[which];
        CHECK(b.len > 50);
        for (size_t i = 0; i < b.len; i++) {
            for (size_t k = 0; k < sizeof xors; k++) {
                b.data[i] ^= xors[k];
                VmError err;
                VmModule *m = vm_module_read(b.data, b.len, &err);
                if (m) {
                    VmBuf w = {0};
                    vm_module_write(m, &w);
                    vm_dis(m, null);
                    if (which == 1)
                        vm_dis_source(m, null);
                    vm_verify(m, &err);
                    vm_buf_free(&w);
                    vm_module_free(m);
                }
                b.data[i] ^= xors[k];
            }
        }
        vm_buf_free(&bufs[which]);
    }
    fclose(null);
}

TEST(format_reader_messages)
{
    VmModule *m = vm_module_new();
    m->nmethods = 1;
    m->methods = calloc(1, sizeof *m->methods);
    m->methods[0].name = strdup("main");
    m->methods[0].owner = VM_NONE;
    m->methods[0].ncode = 2;
    m->methods[0].code = calloc(2, sizeof *m->methods[0].code);
    m->methods[0].code[0].op = VM_OP_NOP;
    m->methods[0].code[1].op = 200;
    VmBuf b = {0};
    vm_module_write(m, &b);
    VmError err;
    VmModule *r = vm_module_read(b.data, b.len, &err);
    CHECK(!r);
    CHECK_STR(err.msg, "bad module: unknown opcode 200 in method main at offset 1");
    vm_module_free(r);

    /* a truncated instruction names the method's code */
    vm_buf_free(&b);
    m->methods[0].code[1].op = VM_OP_LDI;
    vm_module_write(m, &b);
    r = vm_module_read(b.data, b.len - 10, &err);  /* inside LDI's immediate */
    CHECK(!r);
    CHECK_CONTAINS(err.msg, "bad module: truncated in method 0 code");
    vm_module_free(m);
    vm_buf_free(&b);

    /* a type referring forwards (no constants, no files, 2 types) */
    static const uint8_t fwd[] = {'T', 'L', 'B', 0x1a, VM_FORMAT_VERSION, 0, 0, 2, VM_T_ARRAY, 1, VM_T_INT,
                                  0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    r = vm_module_read(fwd, sizeof fwd, &err);
    CHECK(!r);
    CHECK_STR(err.msg, "bad module: type 0 refers to type 1 (must be < 0)");
    /* a count larger than the bytes left */
    static const uint8_t big[] = {'T', 'L', 'B', 0x1a, VM_FORMAT_VERSION, 0xff, 0xff, 0xff, 0xff, 0x0f};
    r = vm_module_read(big, sizeof big, &err);
    CHECK(!r);
    CHECK_STR(err.msg, "bad module: truncated in constants (4294967295 entries, 0 bytes left)");
    /* ... and in the files table */
    static const uint8_t bigf[] = {'T', 'L', 'B', 0x1a, VM_FORMAT_VERSION, 0, 0x05};
    r = vm_module_read(bigf, sizeof bigf, &err);
    CHECK(!r);
    CHECK_STR(err.msg, "bad module: truncated in files (5 entries, 0 bytes left)");
    static const uint8_t nulf[] = {'T', 'L', 'B', 0x1a, VM_FORMAT_VERSION, 0, 1, 3, 'a', 0, 'b'};
    r = vm_module_read(nulf, sizeof nulf, &err);
    CHECK(!r);
    CHECK_STR(err.msg, "bad module: NUL byte in file 0");
}

TEST(format_files)
{
    VmError err = {{0}};
    VmModule *m = vm_asm(files_text, strlen(files_text), "f.tla", &err);
    CHECK(m != NULL);
    if (!m) {
        test_fail(__FILE__, __LINE__, "%s", err.msg);
        return;
    }
    CHECK_INT(m->nfiles, 5);
    CHECK_STR(m->files[0], "lib.tl");
    CHECK_STR(m->files[1], "main.tl");
    CHECK_STR(m->files[3], "dir/util \"q\".tl");
    CHECK_STR(m->files[4], "new.tl");
    static const uint32_t want[] = {1, 2, 4, 5, 0, 3, 0, 9};  /* a b c d e f main g */
    CHECK_INT(m->nmethods, 8);
    for (uint32_t i = 0; i < 8 && i < m->nmethods; i++)
        CHECK_INT(m->methods[i].file, want[i]);

    /* the disassembly names canonical paths and `#N` for the others */
    char *t = dis_text(m);
    CHECK_CONTAINS(t, "source \"main.tl\"\nfiles \"lib.tl\", \"main.tl\", \"lib.tl\", \"dir/util \\\"q\\\".tl\", \"new.tl\"\n");
    CHECK_CONTAINS(t, "method a () : void file \"lib.tl\" static\n");
    CHECK_CONTAINS(t, "method b () : void file #2 static\n");
    CHECK_CONTAINS(t, "method f () : void file #3 static\n");
    CHECK_CONTAINS(t, "method g () : void file #9 static\n");
    CHECK_CONTAINS(t, "method e () : void static\n");
    free(t);

    /* the verifier checks the range: file <= nfiles */
    CHECK(!vm_verify(m, &err));
    CHECK_STR(err.msg, "multi: method g: file index 9 out of range (5 files)");
    m->methods[7].file = 5;
    CHECK(vm_verify(m, &err));
    m->methods[7].file = 6;
    CHECK(!vm_verify(m, &err));
    CHECK_STR(err.msg, "multi: method g: file index 6 out of range (5 files)");
    m->methods[7].file = 0;
    free(m->files[2]);
    m->files[2] = NULL;
    CHECK(!vm_verify(m, &err));
    CHECK_STR(err.msg, "multi: file 3: missing name");
    vm_module_free(m);

    /* without a `source` declaration the .tla path is the source */
    static const char dflt[] = "method f () : void static file \"x/p.tla\"\n  RETV\nend\n"
                               "method g () : void static file \"q.tl\"\n  RETV\nend\n";
    m = vm_asm(dflt, strlen(dflt), "x/p.tla", &err);
    CHECK(m != NULL);
    if (m) {
        CHECK_INT(m->nfiles, 1);
        CHECK_INT(m->methods[0].file, 0);
        CHECK_INT(m->methods[1].file, 1);
        vm_module_free(m);
    }
    roundtrip("x/p.tla", dflt);

    /* a module without files writes an empty table and file 0 per method */
    m = vm_asm(sample, strlen(sample), "s.tla", &err);
    CHECK(m != NULL);
    if (m) {
        CHECK_INT(m->nfiles, 0);
        t = dis_text(m);
        CHECK(!strstr(t, "files"));
        CHECK(!strstr(t, " file "));
        free(t);
        vm_module_free(m);
    }
}

/* Writes text to dir/name; returns the path (static buffer per slot). */
static const char *write_src(const char *dir, const char *name, const char *text, int slot)
{
    static char paths[4][512];
    snprintf(paths[slot], sizeof paths[slot], "%s/%s", dir, name);
    FILE *f = fopen(paths[slot], "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return paths[slot];
}

TEST(format_dis_source)
{
    char dir[] = "/tmp/tally-dis-XXXXXX";
    if (!mkdtemp(dir)) {
        test_fail(__FILE__, __LINE__, "mkdtemp failed");
        return;
    }
    const char *main_tl = write_src(dir, "main.tl", "fun main() {\n    let x = lib.f(1)\r\n\tprint(x)   \n}", 0);
    const char *lib_tl = write_src(dir, "lib.tl", "// lib\nfun f(x: int): int {\n  return x \x01 1 // end\n", 1);
    char *text = NULL;
    if (asprintf(&text,
                 "module \"ann\"\n"
                 "source \"%s\"\n"
                 "main main\n"
                 "method lib.f (int) : int static file \"%s\"\n"
                 "  line 3\n"
                 "  RET r0\n"
                 "  line 9\n"        /* past the end of lib.tl: no comment */
                 "end\n"
                 "method gone () : void static file \"%s/missing.tl\"\n"
                 "  line 2\n"        /* the file does not exist: no comment */
                 "  RETV\n"
                 "end\n"
                 "method main () : void static\n"
                 "  regs int\n"
                 "  line 2\n"
                 "  LDI r0, 1\n"
                 "  CALL r0, r0, lib.f\n"
                 "  line 3\n"
                 "  line 4\n"
                 "  RETV\n"
                 "  line 1\n"
                 "end\n",
                 main_tl, lib_tl, dir) < 0) {
        test_fail(__FILE__, __LINE__, "asprintf failed");
        return;
    }
    VmError err = {{0}};
    VmModule *m = vm_asm(text, strlen(text), "ann.tla", &err);
    CHECK(m != NULL);
    if (!m) {
        test_fail(__FILE__, __LINE__, "%s", err.msg);
        free(text);
        return;
    }
    char *ann = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&ann, &len);
    vm_dis_source(m, f);
    fclose(f);
    /* comments follow their directives, trimmed, control bytes as '?' */
    CHECK_CONTAINS(ann, "  line 3\n  // 3: return x ? 1 // end\n  RET r0\n  line 9\nend\n");
    CHECK_CONTAINS(ann, "  line 2\n  RETV\nend\n");
    CHECK_CONTAINS(ann, "  line 2\n  // 2: let x = lib.f(1)\n  LDI r0, 1\n");
    CHECK_CONTAINS(ann, "  line 4\n  // 4: }\n  RETV\n  line 1\n  // 1: fun main() {\nend\n");
    /* `line 3` then `line 4` at one pc keeps only the last */
    CHECK(!strstr(ann, "print(x)"));

    /* the annotated text reassembles to the same module */
    char *plain = dis_text(m);
    VmModule *m2 = vm_asm(ann, len, "ann2.tla", &err);
    CHECK(m2 != NULL);
    if (m2) {
        char *again = dis_text(m2);
        CHECK_STR(again, plain);
        free(again);
        VmBuf b1 = {0}, b2 = {0};
        vm_module_write(m, &b1);
        vm_module_write(m2, &b2);
        CHECK(same_buf(&b1, &b2));
        vm_buf_free(&b1);
        vm_buf_free(&b2);
        vm_module_free(m2);
    }
    /* with no readable file it is exactly vm_dis */
    free(m->source);
    m->source = strdup("/nonexistent/main.tl");
    free(m->files[0]);
    m->files[0] = strdup(dir);  /* a directory: not read */
    free(ann);
    f = open_memstream(&ann, &len);
    vm_dis_source(m, f);
    fclose(f);
    char *plain2 = dis_text(m);
    CHECK_STR(ann, plain2);
    free(plain2);
    free(plain);
    free(ann);
    free(text);
    vm_module_free(m);
    char rm[600];
    snprintf(rm, sizeof rm, "%s/main.tl", dir);
    remove(rm);
    snprintf(rm, sizeof rm, "%s/lib.tl", dir);
    remove(rm);
    remove(dir);
}

/* Assembles `text` expecting an error containing `want`. */
static void asm_error(int line, const char *text, const char *want)
{
    VmError err = {{0}};
    VmModule *m = vm_asm(text, strlen(text), "t.tla", &err);
    if (m) {
        test_fail(__FILE__, line, "assembled, expected \"%s\"", want);
        vm_module_free(m);
    } else if (!strstr(err.msg, want)) {
        test_fail(__FILE__, line, "error \"%s\" lacks \"%s\"", err.msg, want);
    }
}

#define HEAD "method f (int) : int static\n  regs int\n"
TEST(format_asm_errors)
{
    asm_error(__LINE__, HEAD "  LDI r1, 1\n  ADDD r0, r0, r1\n  RET r0\nend\n",
              "t.tla:4: unknown opcode 'ADDD' (did you mean ADD?)");
    asm_error(__LINE__, HEAD "  mov r0, r1\nend\n", "t.tla:3: unknown opcode 'mov' (did you mean MOV?)");
    asm_error(__LINE__, HEAD "  JMP L1\nL2:\n  JMP nowhere\n  RET r0\nL1:\nend\n",
              "t.tla:5: unknown label 'nowhere'");
    asm_error(__LINE__, HEAD "  ADD r0, r1\nend\n", "t.tla:3: ADD takes 3 operands, got 2");
    asm_error(__LINE__, HEAD "  RETV r0\nend\n", "t.tla:3: RETV takes 0 operands, got 1");
    asm_error(__LINE__, HEAD "  MOV x1, r0\nend\n", "t.tla:3: expected a register");
    asm_error(__LINE__, HEAD "  MOV r2, r0\nend\n", "t.tla:3: register r2 out of range");
    asm_error(__LINE__, HEAD "  RETV\nend\n\nmethod f () : void\n  RETV\nend\n",
              "t.tla:6: duplicate method 'f' (first declared on line 1)");
    asm_error(__LINE__, HEAD "x:\nx:\n  RETV\nend\n", "t.tla:4: duplicate label 'x'");
    asm_error(__LINE__, HEAD "l:\n  JLTS r0, 2147483648, l\nend\n", "t.tla:4: immediate 2147483648 out of range");
    asm_error(__LINE__, HEAD "  LDI r0, 9223372036854775808\nend\n", "t.tla:3: integer");
    asm_error(__LINE__, HEAD "  LDF r0, 1\nend\n", "t.tla:3: expected a float");
    asm_error(__LINE__, HEAD "  LDK r0, \"a\\q\"\nend\n", "t.tla:3: unknown escape");
    asm_error(__LINE__, HEAD "  CALL r0, r0, g\nend\n", "t.tla:3: unknown method 'g'");
    asm_error(__LINE__, HEAD "  GETF r0, r0, Foo.x\nend\n", "t.tla:3: unknown class 'Foo'");
    asm_error(__LINE__, "\n" HEAD "  RETV\n", "t.tla:2: missing 'end' for method 'f'");
    asm_error(__LINE__, "global g Nope\n", "t.tla:1: unknown type 'Nope'");
    asm_error(__LINE__, "globl g int\n", "t.tla:1: unknown declaration 'globl' (did you mean 'global'?)");
    asm_error(__LINE__, "class C\n  vtable\n  wat\nend\n", "t.tla:3: unexpected 'wat' in class body");
    asm_error(__LINE__, "class int\nend\n", "t.tla:1: 'int' is a built-in type name");
    asm_error(__LINE__, "ADD r0, r0, r0\n", "t.tla:1: instruction 'ADD' outside a method");
    asm_error(__LINE__, "module \"a\"\nmodule \"b\"\n", "t.tla:2: duplicate 'module'");
    asm_error(__LINE__, HEAD "  RETV\n  regs int\nend\n", "t.tla:4: 'regs' must come before");
    asm_error(__LINE__, "method f () : void static static\n", "t.tla:1: duplicate 'static'");
    asm_error(__LINE__, "global s string\nglobal s int\n", "t.tla:2: duplicate global 's'");
    asm_error(__LINE__, "types #0\n", "t.tla:1: a 'types' entry must spell a type");
    asm_error(__LINE__, "global g #5[]\n", "t.tla:1: type #5 out of range inside a type");
    asm_error(__LINE__, "consts \"a\" \"b\"\n", "t.tla:1: expected ','");
    asm_error(__LINE__, HEAD "  LDK r0, \"abc\nend\n", "t.tla:3: unterminated string");
    asm_error(__LINE__, "method f () : void static file \"a\" file \"b\"\n", "t.tla:1: duplicate 'file'");
    asm_error(__LINE__, "method f () : void file static\n", "t.tla:1: expected a file path string");
    asm_error(__LINE__, "files \"a\\0b\"\n", "t.tla:1: NUL byte in a file path");
    asm_error(__LINE__, "file \"a\"\n", "t.tla:1: unknown declaration 'file' (did you mean 'files'?)");
    asm_error(__LINE__, "class C\n  imap a b\nend\n", "t.tla:2: expected '='");
    asm_error(__LINE__, "class C\n  imap a = b\nend\n", "t.tla:2: unknown method 'a'");
    asm_error(__LINE__, "class C\n  imap #1 = #2 x\nend\n", "t.tla:2: unexpected 'x' at end of line");
    /* the first error wins */
    asm_error(__LINE__, HEAD "  FOO\n  BAR\nend\n", "t.tla:3: unknown opcode 'FOO'");
}

TEST(format_asm_mutations)
{
    /* every prefix of a valid text, and the text with any one line
     * deleted, either fails with "file:line:" or assembles to a module that
     * round-trips exactly */
    size_t n = strlen(sample);
    int ok = 0;
    char *text = malloc(n + 1);
    for (size_t len = 0, variant = 0; variant < 2; len++) {
        size_t tlen = len;
        if (variant == 0) {
            memcpy(text, sample, len);
        } else {
            /* delete the line starting at offset len (if one does) */
            if (len && sample[len - 1] != '\n')
                goto next;
            const char *nl = strchr(sample + len, '\n');
            size_t skip = nl ? (size_t)(nl - sample) + 1 - len : n - len;
            memcpy(text, sample, len);
            memcpy(text + len, sample + len + skip, n - len - skip);
            tlen = n - skip;
        }
        text[tlen] = 0;
        VmError err;
        VmModule *m = vm_asm(text, tlen, "cut.tla", &err);
        if (m) {
            ok++;
            vm_module_free(m);
            roundtrip("cut.tla", text);
        } else if (strncmp(err.msg, "cut.tla:", 8) != 0) {
            test_fail(__FILE__, __LINE__, "message \"%s\"", err.msg);
        }
    next:
        if (len == n)
            variant++, len = (size_t)-1;
    }
    free(text);
    CHECK(ok > 20);
}
