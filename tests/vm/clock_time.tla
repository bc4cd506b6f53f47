// clock(): monotonic seconds; two readings around some work do not go
// backwards and differ by less than a minute.
// expect: true
// expect: true
// expect: true
module "clock_time"
source "clock_time.tl"
main main
native clock () : float = builtin "clock"
native println_bool (bool) : void = builtin "println_bool"

method main () : void static
  regs float, float, float, int, int, bool
  CALLN r0, r0, clock
  LDI r3, 0
  LDI r4, 100000
spin:
  LOOP r3, r4, spin
  CALLN r1, r0, clock
  FLE r5, r0, r1
  CALLN _, r5, println_bool
  FSUB r2, r1, r0
  LDF r0, 60.0
  FLT r5, r2, r0
  CALLN _, r5, println_bool
  // a finite, non-negative reading
  LDF r0, 0.0
  FLE r5, r0, r1
  CALLN _, r5, println_bool
  RETV
end
