-- alloc: build a linked list of 1000 small nodes, walk it summing a field,
-- drop it; repeated (allocation, GC and field access).
local N, ROUNDS = 1000, 5000
local total = 0
for r = 1, ROUNDS do
  local head = nil
  for i = 0, N - 1 do
    head = {value = i + r, next = head}
  end
  local node = head
  while node do
    total = total + node.value
    node = node.next
  end
end
print(total)
