// A trace longer than 2 x vm.trace_frames lines keeps the innermost and
// outermost frames with "... N more frames" between (7 frames, 2 kept
// at each end).
// flags: -X vm.trace_frames=2
// expect-runtime-error: division by zero
// expect-stderr: error: division by zero
// expect-stderr:   at down (trace_truncated.tl:4)
// expect-stderr:   at down (trace_truncated.tl:6)
// expect-stderr:   ... 3 more frames
// expect-stderr:   at down (trace_truncated.tl:6)
// expect-stderr:   at main (trace_truncated.tl:11)
module "trace_truncated"
source "trace_truncated.tl"
main main

// down(n): n == 0 divides by zero, else down(n - 1)
method down (int) : int static
  regs int
  line 3
  JGTS r0, 0, more
  line 4
  DIV r1, r0, r0
  RET r1
more:
  ADDK r1, r0, -1
  line 6
  CALL r1, r1, down
  RET r1
end

method main () : void static
  regs int, int
  line 10
  LDI r0, 5
  line 11
  CALL r1, r0, down
  RETV
end
