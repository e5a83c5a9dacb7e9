#include "graph/value.h"

namespace osched {
void Value::set_str(std::string s) {
  if (box_ != 0 && !(box_ & kListBit)) {
    if (s.empty())
      free_box();
    else
      *reinterpret_cast<std::string*>(box_) = std::move(s);
    return;
  }
  free_box();
  if (!s.empty())
    box_ = reinterpret_cast<uintptr_t>(new std::string(std::move(s)));
}

void Value::copy_box(const Value& o) {
  if (o.box_ & kListBit)
    box_ = reinterpret_cast<uintptr_t>(new std::vector<Value>(o.items())) | kListBit;
  else if (o.box_ != 0)
    box_ = reinterpret_cast<uintptr_t>(new std::string(o.str()));
}

void Value::free_box() {
  if (box_ & kListBit)
    delete reinterpret_cast<std::vector<Value>*>(box_ & ~kListBit);
  else if (box_ != 0)
    delete reinterpret_cast<std::string*>(box_);
  box_ = 0;
}

} // namespace osched
