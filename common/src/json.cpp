// SPDX-License-Identifier: Apache-2.0
#include "normlab/json.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace normlab {

std::string json_quoted(std::string_view text) {
  std::string out = "\"";
  for (const char ch : text) {
    switch (ch) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(ch));
          out += escaped;
        } else {
          out += ch;  // bytes >= 0x80 pass through: UTF-8 stays UTF-8
        }
    }
  }
  return out + "\"";
}

void JsonWriter::new_line() {
  if (indent_ > 0)
    out_ << '\n' << std::string(open_.size() * static_cast<std::size_t>(indent_), ' ');
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!open_.empty() && open_.back() == '{')
    throw std::logic_error("JsonWriter: a value inside an object needs a key first");
  if (!open_.empty()) {
    if (!empty_) out_ << (indent_ > 0 ? "," : ", ");
    new_line();
  }
  empty_ = false;
}

JsonWriter& JsonWriter::key(std::string_view name) {
  if (open_.empty() || open_.back() != '{' || after_key_)
    throw std::logic_error("JsonWriter: a key belongs directly inside an object");
  if (!empty_) out_ << (indent_ > 0 ? "," : ", ");
  new_line();
  empty_ = false;
  out_ << json_quoted(name) << ": ";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::open(char bracket) {
  before_value();
  out_ << bracket;
  open_.push_back(bracket);
  empty_ = true;
  return *this;
}

JsonWriter& JsonWriter::close(char bracket) {
  const char opening = bracket == '}' ? '{' : '[';
  if (open_.empty() || open_.back() != opening || after_key_)
    throw std::logic_error(std::string("JsonWriter: nothing to close with '") + bracket + "'");
  open_.pop_back();
  if (!empty_) new_line();
  out_ << bracket;
  empty_ = false;
  if (open_.empty() && indent_ > 0) out_ << '\n';
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view text) {
  before_value();
  out_ << json_quoted(text);
  return *this;
}

JsonWriter& JsonWriter::value(bool flag) {
  before_value();
  out_ << (flag ? "true" : "false");
  return *this;
}

JsonWriter& JsonWriter::value(double number) {
  if (!std::isfinite(number)) return null();
  before_value();
  char text[32];
  const auto result = std::to_chars(text, text + sizeof text, number);
  out_.write(text, result.ptr - text);
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  out_ << "null";
  return *this;
}

}  // namespace normlab
