// SPDX-License-Identifier: Apache-2.0
/// @file json.hpp
/// @brief The one JSON writer of the normlab programs: streaming, strings escaped, non-finite
/// numbers written as null.
#pragma once

#include <concepts>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace normlab {

/// @p text as a JSON string: quoted, with '"', '\\' and every control character escaped.
std::string json_quoted(std::string_view text);

/// Writes one JSON value to a stream as it is built:
///   JsonWriter json(std::cout);
///   json.begin_object().member("name", "ch07_rmsnorm").member("gbps", 3012.5);
///   json.key("outputs").begin_array().value(1).value(2).end_array().end_object();
/// Commas, and with @p indent > 0 new lines and indentation, are placed by the writer.
class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out, int indent = 2) : out_(out), indent_(indent) {}

  JsonWriter& begin_object() { return open('{'); }
  JsonWriter& end_object() { return close('}'); }
  JsonWriter& begin_array() { return open('['); }
  JsonWriter& end_array() { return close(']'); }

  /// The name of the next member of the current object.
  JsonWriter& key(std::string_view name);

  JsonWriter& value(std::string_view text);
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(bool flag);
  /// Shortest text that reads back as the same double; null when not finite.
  JsonWriter& value(double number);
  template <std::integral Integer>
  requires(!std::same_as<Integer, bool>) JsonWriter& value(Integer number) {
    before_value();
    out_ << +number;  // + prints a char-sized integer as a number
    return *this;
  }
  JsonWriter& null();

  /// key(name).value(v).
  template <typename Value>
  JsonWriter& member(std::string_view name, const Value& v) {
    return key(name).value(v);
  }

 private:
  JsonWriter& open(char bracket);
  JsonWriter& close(char bracket);
  // Separates and indents the value about to be written.
  void before_value();
  void new_line();

  std::ostream& out_;
  int indent_;
  std::vector<char> open_;  // the brackets still open, innermost last
  bool empty_ = true;       // nothing written yet in the innermost open bracket
  bool after_key_ = false;  // a key was written; its value comes next
};

}  // namespace normlab
