// ALEN, AGETI on a null array: "null dereference".
// expect-runtime-error: null dereference
// expect-stderr: error: null dereference
// expect-stderr:   at first (err_null_array.tl:3)
// expect-stderr:   at main (err_null_array.tl:8)
module "err_null_array"
source "err_null_array.tl"
main main

method first (int[]) : int static
  regs int
  line 3
  AGETI r1, r0, r1
  RET r1
end

method main () : void static
  regs int[], int
  line 7
  LDNULL r0
  line 8
  CALL r1, r0, first
  RETV
end
