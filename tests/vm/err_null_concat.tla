// SCAT with a null operand is an error ("null dereference").
// expect-runtime-error: null dereference
// expect-stderr: error: null dereference
// expect-stderr:   at join (err_null_concat.tl:3)
// expect-stderr:   at main (err_null_concat.tl:9)
module "err_null_concat"
source "err_null_concat.tl"
main main

method join (string, string) : string static
  regs string
  line 3
  SCAT r2, r0, r1
  RET r2
end

method main () : void static
  regs string, string, string
  line 7
  LDK r0, "a"
  LDNULL r1
  line 9
  CALL r2, r0, join
  RETV
end
