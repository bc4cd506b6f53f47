// CAST failure: "failed cast: Square to Circle" (runtime class, target).
// expect-runtime-error: failed cast: Square to Circle
// expect-stderr: error: failed cast: Square to Circle
// expect-stderr:   at as_circle (err_cast.tl:7)
// expect-stderr:   at main (err_cast.tl:13)
module "err_cast"
source "err_cast.tl"
main main

class Shape
end

class Square extends Shape
end

class Circle extends Shape
  field r float
end

method as_circle (Shape) : Circle static
  regs Circle
  line 7
  CAST r1, r0, Circle
  RET r1
end

method main () : void static
  regs Square, Circle, Circle
  line 12
  NEW r1, Circle
  CALL r2, r1, as_circle
  NEW r0, Square
  line 13
  CALL r2, r0, as_circle
  RETV
end
