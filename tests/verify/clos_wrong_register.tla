// The closure register's function type differs from the lambda's.
// expect-error: clos_wrong_register: method main at offset 1: register r0 has type fn(int), expected fn(int):int
module "clos_wrong_register"
main main

method add$1 (fn(int):int, int) : int lambda
  caps int
  regs int
  LDCAP r2, 0
  ADD r2, r2, r1
  RET r2
end

method main () : void static
  regs fn(int), int
  LDI r1, 1
  CLOS r0, r1, add$1
  RETV
end
