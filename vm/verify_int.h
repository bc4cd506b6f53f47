/* vm/verify_int.h — internals shared by the two halves of the verifier.
 *
 * verify.c checks the module tables (types, classes, fields, methods'
 * headers, vtables, globals, natives, main/init) and then calls
 * vm_verify_code (verify_code.c) for each method with code.  The code
 * half relies on everything the table half established: every type,
 * class, method, field, global and native entry is well formed, the class
 * graph is acyclic, every method's register, capture and return types are
 * valid indices (void only as a return type), and vtables are consistent.
 * Nothing here is exported beyond the verifier.
 */
#ifndef TALLY_VERIFY_INT_H
#define TALLY_VERIFY_INT_H

#include "vm.h"

/* Verification state: the module, the error sink, and the entry being
 * checked (for message prefixes). */
typedef struct VmVerifier {
    const VmModule *m;
    VmError *err;
    const VmMethod *meth;   /* method whose code is being checked */
    uint32_t pc;
    char tbuf[4][256];      /* rotating buffers for printed type names */
    int tnext;
} VmVerifier;

/* The printed name of type t (valid until four more calls). */
const char *vm_verify_tname(VmVerifier *v, uint32_t t);
/* NULL-safe name for messages. */
const char *vm_verify_str(const char *s);

/* Class relations on a verified (acyclic, in-range) class graph. */
/* Is an instance of class c usable where type t is expected? */
bool vm_verify_class_fits(const VmModule *m, uint32_t c, uint32_t t);

/* Method categories (on verified headers). */
bool vm_verify_is_virtual(const VmModule *m, const VmMethod *mm);
bool vm_verify_is_iface_method(const VmModule *m, const VmMethod *mm);

/* Checks the code of one method whose header has been verified. */
bool vm_verify_code(VmVerifier *v, const VmMethod *mm);

#endif
