// A virtual method whose r0 is not its owner class.
// expect-error: receiver_type: method A.get: receiver r0 has type int, expected A
module "receiver_type"
main main
class A
  vtable A.get
end
method A.get (int) : int owner A
  RET r0
end
method main () : void static
  RETV
end
