// A symbol missing from an existing library is a load error (exit 2).
// expect-exit: 2
// expect-stderr: error: err_missing_symbol: native nope: symbol 'tally_no_such_symbol' not found in 'libm.so.6'
module "err_missing_symbol"
source "err_missing_symbol.tl"
main main
native println_string (string) : void = builtin "println_string"
native nope (float) : float = "libm.so.6" "tally_no_such_symbol"

method main () : void static
  regs string, float
  LDK r0, "must not print"
  CALLN _, r0, println_string
  CALLN r1, r1, nope
  RETV
end
