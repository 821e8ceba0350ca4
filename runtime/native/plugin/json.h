// A small JSON reader for the world's aurgen:environment text (objects, arrays,
// numbers, strings, true/false/null).  Errors carry the byte offset.
#ifndef AURGEN_PLUGIN_JSON_H_
#define AURGEN_PLUGIN_JSON_H_

#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace aurgen::json {

struct Value {
  enum Kind { kNull, kBool, kNum, kStr, kArr, kObj } kind = kNull;
  bool b = false;
  double num = 0.0;
  bool integral = false;  // a number written with no fraction or exponent (Python's json: an int)
  std::string tok;        // the number as written
  std::string str;
  std::vector<Value> arr;
  std::map<std::string, Value> obj;
  const Value* Get(const std::string& k) const {
    auto it = obj.find(k);
    return kind == kObj && it != obj.end() ? &it->second : nullptr;
  }
};

class Parser {
 public:
  explicit Parser(const std::string& s) : s_(s) {}
  Value Parse() {
    Value v = ParseValue(0);
    Ws();
    if (i_ != s_.size()) Err("trailing characters");
    return v;
  }

 private:
  [[noreturn]] void Err(const char* what) {
    throw std::runtime_error(std::string("environment JSON does not parse: ") + what +
                             " at character " + std::to_string(i_));
  }
  void Ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r')) ++i_;
  }
  // c next (after whitespace): consumed.
  bool Eat(char c) {
    Ws();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  // After an object member or array element: true at ',' (another follows), false at
  // close (the end); anything else is an error.
  bool Next(char close, const char* expected) {
    if (Eat(',')) return true;
    if (Eat(close)) return false;
    Err(expected);
  }
  bool Lit(const char* w) {
    size_t n = std::char_traits<char>::length(w);
    if (s_.compare(i_, n, w) == 0) {
      i_ += n;
      return true;
    }
    return false;
  }
  std::string Str() {
    std::string out;
    ++i_;  // opening quote
    while (i_ < s_.size() && s_[i_] != '"') {
      char c = s_[i_++];
      if (c == '\\') {
        if (i_ >= s_.size()) Err("unterminated string");
        char e = s_[i_++];
        switch (e) {
          case 'n': out += '\n'; break;
          case 't': out += '\t'; break;
          case 'r': out += '\r'; break;
          case 'b': out += '\b'; break;
          case 'f': out += '\f'; break;
          case 'u': {  // keep ASCII, replace the rest
            if (i_ + 4 > s_.size()) Err("bad \\u escape");
            unsigned long cp = std::strtoul(s_.substr(i_, 4).c_str(), nullptr, 16);
            out += cp < 128 ? static_cast<char>(cp) : '?';
            i_ += 4;
            break;
          }
          default: out += e;
        }
      } else {
        out += c;
      }
    }
    if (i_ >= s_.size()) Err("unterminated string");
    ++i_;
    return out;
  }
  Value ParseValue(int depth) {
    if (depth > 64) Err("nesting too deep");
    Ws();
    if (i_ >= s_.size()) Err("unexpected end");
    Value v;
    char c = s_[i_];
    if (c == '{') {
      v.kind = Value::kObj;
      ++i_;
      if (Eat('}')) return v;
      do {
        Ws();
        if (i_ >= s_.size() || s_[i_] != '"') Err("expected a key");
        std::string k = Str();
        if (!Eat(':')) Err("expected ':'");
        v.obj[k] = ParseValue(depth + 1);
      } while (Next('}', "expected ',' or '}'"));
      return v;
    }
    if (c == '[') {
      v.kind = Value::kArr;
      ++i_;
      if (Eat(']')) return v;
      do {
        v.arr.push_back(ParseValue(depth + 1));
      } while (Next(']', "expected ',' or ']'"));
      return v;
    }
    if (c == '"') {
      v.kind = Value::kStr;
      v.str = Str();
      return v;
    }
    if (Lit("true")) {
      v.kind = Value::kBool;
      v.b = true;
      return v;
    }
    if (Lit("false")) {
      v.kind = Value::kBool;
      return v;
    }
    if (Lit("null")) return v;
    // NaN, Infinity, -Infinity: read as Python's json reads them (a non-finite number; the
    // environment's checks refuse it, naming the key)
    for (const char* w : {"NaN", "Infinity", "-Infinity"})
      if (Lit(w)) {
        v.kind = Value::kNum;
        v.num = w[0] == 'N' ? std::numeric_limits<double>::quiet_NaN()
                            : (w[0] == '-' ? -1 : 1) * std::numeric_limits<double>::infinity();
        v.tok = w;
        return v;
      }
    // JSON's number grammar only (as Python's json): -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
    // (no hex, no leading '.', '+' or zeros); strtod reads just that span
    size_t j = i_;
    auto digit = [&](size_t k) { return k < s_.size() && s_[k] >= '0' && s_[k] <= '9'; };
    if (j < s_.size() && s_[j] == '-') ++j;
    if (!digit(j)) Err("unexpected character");
    if (s_[j] == '0') ++j;
    else
      while (digit(j)) ++j;
    if (j < s_.size() && s_[j] == '.') {
      if (!digit(++j)) Err("expected a digit after a number's '.'");
      while (digit(j)) ++j;
    }
    if (j < s_.size() && (s_[j] == 'e' || s_[j] == 'E')) {
      ++j;
      if (j < s_.size() && (s_[j] == '+' || s_[j] == '-')) ++j;
      if (!digit(j)) Err("expected a digit in a number's exponent");
      while (digit(j)) ++j;
    }
    v.tok = s_.substr(i_, j - i_);
    v.integral = v.tok.find_first_of(".eE") == std::string::npos;
    v.num = std::strtod(v.tok.c_str(), nullptr);
    i_ = j;
    v.kind = Value::kNum;
    return v;
  }
  const std::string& s_;
  size_t i_ = 0;
};

}  // namespace aurgen::json

#endif  // AURGEN_PLUGIN_JSON_H_
