// LDCAP of a capture the lambda does not have.
// expect-error: ldcap_index: method add$1 at offset 0: capture index 1 out of range (1 captures)
module "ldcap_index"
main main

method add$1 (fn(int):int, int) : int lambda
  caps int
  regs int
  LDCAP r2, 1
  ADD r2, r2, r1
  RET r2
end

method main () : void static
  RETV
end
