// GETF on a null reference: "null dereference" with a two-frame trace.
// expect: before
// expect-runtime-error: null dereference
// expect-stderr: error: null dereference
// expect-stderr:   at Point.getx (err_null_field.tl:4)
// expect-stderr:   at main (err_null_field.tl:11)
module "err_null_field"
source "err_null_field.tl"
main main
native println_string (string) : void = builtin "println_string"

class Point
  field x int
end

method Point.getx (Point) : int owner Point static
  regs int
  line 3
  NOP
  line 4
  GETF r1, r0, Point.x
  RET r1
end

method main () : void static
  regs Point, int, string
  line 9
  LDK r2, "before"
  CALLN _, r2, println_string
  LDNULL r0
  line 11
  CALL r1, r0, Point.getx
  line 12
  CALLN _, r2, println_string
  RETV
end
