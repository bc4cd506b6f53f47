// An error inside a lambda called through CALLF from a virtual method
// called through CALLI: every kind of frame appears in the trace by name.
// expect-runtime-error: null dereference
// expect-stderr: error: null dereference
// expect-stderr:   at run$1 (err_in_lambda.tl:3)
// expect-stderr:   at Runner.go (err_in_lambda.tl:8)
// expect-stderr:   at main (err_in_lambda.tl:14)
module "err_in_lambda"
source "err_in_lambda.tl"
main main

interface Task
  methods Task.go
end

class Runner implements Task
  field f fn(string):int
  vtable Runner.go
end

method Task.go (Task, string) : int owner Task abstract

// the string's length; null crashes
method run$1 (fn(string):int, string) : int lambda
  regs int
  line 3
  SLEN r2, r1
  RET r2
end

method Runner.go (Runner, string) : int owner Runner
  regs fn(string):int, string, int
  line 7
  GETF r2, r0, Runner.f
  MOV r3, r1
  line 8
  CALLF r4, r2
  RET r4
end

method main () : void static
  regs Runner, fn(string):int, Task, string, int
  line 12
  NEW r0, Runner
  CLOS r1, r1, run$1
  PUTF r0, Runner.f, r1
  MOV r2, r0
  LDNULL r3
  line 14
  CALLI r4, r2, Task.go
  RETV
end
