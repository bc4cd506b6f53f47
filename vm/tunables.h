/* vm/tunables.h — the tunables engine's interface: the kinds of a row,
 * the row and group descriptors every owner's .def table generates, and
 * the functions that set, default and list them (tunables.c).  Includes
 * nothing of the VM, so that VM-independent code (audit/audit.h) can
 * generate its struct from its table.
 */
#ifndef TALLY_TUNABLES_H
#define TALLY_TUNABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct VmError;

/* Each owner (vm/, ir/, jit/, audit/) writes its tunables once, as rows of
 * a .def table:
 *   TUNABLE(field, "name", KIND, default, min, max, "unit", "help")
 *   TUNABLE_STR(field, "name", "default", "help")
 * and generates from them its struct (VM_TUN_CTYPE_ gives each field's C
 * type) and its VmTunGroup; this engine sets, checks and lists any group.
 * A value is given and checked as an integer in the row's unit; BP, PCT
 * and MS fields hold it scaled: a fraction (/10000, /100) or seconds. */
typedef enum VmTunKind {
    VM_TUN_INT, VM_TUN_SIZE, VM_TUN_BOOL, VM_TUN_BP, VM_TUN_PCT, VM_TUN_MS, VM_TUN_STR
} VmTunKind;
#define VM_TUN_CTYPE_INT int64_t
#define VM_TUN_CTYPE_SIZE int64_t   /* bytes; K/M/G suffixes accepted */
#define VM_TUN_CTYPE_BOOL bool
#define VM_TUN_CTYPE_BP double      /* basis points, held as a fraction */
#define VM_TUN_CTYPE_PCT double     /* percent, held as a fraction */
#define VM_TUN_CTYPE_MS double      /* milliseconds, held in seconds */
#define VM_TUN_NOMAX INT64_MAX

typedef struct VmTunDesc {
    const char *name;
    VmTunKind kind;
    size_t offset;                /* of the field in the group's struct */
    int64_t deflt, min, max;      /* integers in the row's unit */
    const char *sdeflt;           /* VM_TUN_STR */
    const char *unit, *help;
} VmTunDesc;

/* One owner's table: its rows. */
typedef struct VmTunGroup {
    const char *owner;            /* "vm", "ir", "jit", "audit" */
    const VmTunDesc *rows;
    size_t n;
} VmTunGroup;

/* Groups with the struct each one fills: what -X sets and --help lists. */
#define VM_TUN_MAX_GROUPS 8
typedef struct VmTunSet {
    const VmTunGroup *group[VM_TUN_MAX_GROUPS];
    void *obj[VM_TUN_MAX_GROUPS];
    int n;
} VmTunSet;

/* The row generators an owner's .c file uses with its struct S:
 *   #define TUNABLE(...) VM_TUN_ROW(S, __VA_ARGS__)  etc. */
#define VM_TUN_ROW(S, field, name, kind, deflt, min, max, unit, help) \
    {name, VM_TUN_##kind, offsetof(S, field), (deflt), (min), (max), NULL, unit, help},
#define VM_TUN_ROW_STR(S, field, name, deflt, help) \
    {name, VM_TUN_STR, offsetof(S, field), 0, 0, 0, deflt, "", help},

/* Fills obj with g's defaults. */
void vm_tun_defaults(const VmTunGroup *g, void *obj);
/* Parses "name=value" into the group of set that has the name, checking
 * its kind and range; on error, err names the problem and a suggestion. */
bool vm_tun_set(const VmTunSet *set, const char *assignment, struct VmError *err);
/* Every tunable of set by owner, with its current value (text), or the
 * groups' reference table with defaults (markdown: docs/tunables.md). */
void vm_tun_list(FILE *out, const VmTunSet *set, bool markdown);

#endif
