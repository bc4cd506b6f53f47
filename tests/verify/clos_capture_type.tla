// A float captured where the lambda declares an int capture.
// expect-error: clos_capture_type: method main at offset 1: capture 0: float is not assignable to int
module "clos_capture_type"
main main

method add$1 (fn(int):int, int) : int lambda
  caps int
  regs int
  LDCAP r2, 0
  ADD r2, r2, r1
  RET r2
end

method main () : void static
  regs fn(int):int, float
  LDF r1, 1.0
  CLOS r0, r1, add$1
  RETV
end
