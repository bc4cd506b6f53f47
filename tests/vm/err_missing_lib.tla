// A native from a library that does not exist is a load error (exit 2):
// nothing runs, not even the first print.
// expect-exit: 2
// expect-stderr: error: err_missing_lib: native nope: cannot open library 'libtally_no_such_lib.so.1': libtally_no_such_lib.so.1: cannot open shared object file: No such file or directory
module "err_missing_lib"
source "err_missing_lib.tl"
main main
native println_string (string) : void = builtin "println_string"
native nope (int) : int = "libtally_no_such_lib.so.1" "nope"

method main () : void static
  regs string, int
  LDK r0, "must not print"
  CALLN _, r0, println_string
  CALLN r1, r1, nope
  RETV
end
