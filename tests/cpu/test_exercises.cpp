// SPDX-License-Identifier: Apache-2.0
// Every exercise is a skeleton in exercises/exNN-slug and its answer in solutions/exNN-slug.
// The two must be the same files, identical outside their TODO(exNN) regions, so that the
// solution is exactly "the skeleton with the regions filled in"; exercises/README.md lists
// every exercise. The checker runs on the repository, and on a scratch tree with one defect
// planted at a time, to show that it can fail.
#include "normlab_catch.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Splits on '\n' only, so that a missing or extra newline at the end shows up as a difference.
std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    lines.push_back(text.substr(start, end - start));
  }
  lines.push_back(text.substr(start));
  return lines;
}

// A source file with its TODO regions taken apart: `outside` keeps every line that is not
// inside a region (the marker lines included), `regions` holds what each region contains.
struct ParsedSource {
  std::vector<std::string> outside;
  std::vector<std::vector<std::string>> regions;
};

// Parses the regions of @p path (which belongs to exercise @p tag, e.g. "ex04") and appends
// what is wrong with its markers to @p problems.
ParsedSource parse_regions(const fs::path& path, const std::string& tag,
                           std::vector<std::string>& problems) {
  static const std::regex begin_marker(R"(^\s*// TODO\((ex\d\d)\) begin: \S.*$)");
  static const std::regex end_marker(R"(^\s*// TODO\((ex\d\d)\) end$)");
  ParsedSource parsed;
  bool inside = false;
  int line_number = 0;
  const auto problem = [&](const std::string& what) {
    problems.push_back(path.string() + ":" + std::to_string(line_number) + ": " + what);
  };
  for (const std::string& line : split_lines(read_text(path))) {
    ++line_number;
    std::smatch match;
    const bool is_begin = std::regex_match(line, match, begin_marker);
    const bool is_end = !is_begin && std::regex_match(line, match, end_marker);
    if (!is_begin && !is_end) {
      if (line.find("TODO(") != std::string::npos) {
        problem("malformed marker (want '// TODO(" + tag + ") begin: <what to do>' or '// TODO(" +
                tag + ") end')");
      }
      (inside ? parsed.regions.back() : parsed.outside).push_back(line);
      continue;
    }
    if (match[1] != tag) problem("marker " + match[1].str() + " in exercise " + tag);
    if (is_begin && inside) problem("begin inside a region that is still open");
    if (is_end && !inside) problem("end without a begin");
    if (is_begin) parsed.regions.emplace_back();
    inside = is_begin;
    parsed.outside.push_back(line);
  }
  if (inside) problem("region never ends (no '// TODO(" + tag + ") end')");
  return parsed;
}

// Every regular file under @p dir, as paths relative to it.
std::set<std::string> file_list(const fs::path& dir) {
  std::set<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) files.insert(fs::relative(entry.path(), dir).string());
  }
  return files;
}

bool is_markdown(const std::string& file) {
  return fs::path(file).extension() == ".md";
}

// What is wrong with exercise @p name (a directory of <root>/exercises); empty when nothing is.
std::vector<std::string> check_exercise(const fs::path& root, const std::string& name) {
  std::vector<std::string> problems;
  static const std::regex name_pattern(R"(^(ex\d\d)-[a-z0-9]+(-[a-z0-9]+)*$)");
  std::smatch match;
  if (!std::regex_match(name, match, name_pattern)) {
    return {"exercises/" + name + ": the directory must be named exNN-slug"};
  }
  const std::string tag = match[1];
  const fs::path skeleton_dir = root / "exercises" / name;
  const fs::path solution_dir = root / "solutions" / name;
  if (!fs::is_regular_file(skeleton_dir / "README.md")) {
    problems.push_back("exercises/" + name + ": no README.md");
  }
  if (!fs::is_directory(solution_dir)) {
    problems.push_back("exercises/" + name + ": no solutions/" + name);
    return problems;
  }
  const std::set<std::string> skeleton_files = file_list(skeleton_dir);
  const std::set<std::string> solution_files = file_list(solution_dir);
  for (const std::string& file : skeleton_files) {
    if (!solution_files.count(file)) problems.push_back(name + "/" + file + ": not in solutions/");
  }
  for (const std::string& file : solution_files) {
    if (!skeleton_files.count(file)) problems.push_back(name + "/" + file + ": not in exercises/");
  }

  std::size_t regions = 0;
  bool any_region_differs = false;
  for (const std::string& file : skeleton_files) {
    if (!solution_files.count(file)) continue;
    if (is_markdown(file)) {
      if (read_text(skeleton_dir / file) != read_text(solution_dir / file)) {
        problems.push_back(name + "/" + file + ": skeleton and solution differ");
      }
      continue;
    }
    const ParsedSource skeleton = parse_regions(skeleton_dir / file, tag, problems);
    const ParsedSource solution = parse_regions(solution_dir / file, tag, problems);
    regions += skeleton.regions.size();
    if (skeleton.regions.size() != solution.regions.size()) {
      problems.push_back(name + "/" + file + ": " + std::to_string(skeleton.regions.size()) +
                         " TODO regions in the skeleton, " +
                         std::to_string(solution.regions.size()) + " in the solution");
      continue;
    }
    any_region_differs = any_region_differs || skeleton.regions != solution.regions;
    const auto [skeleton_line, solution_line] =
        std::mismatch(skeleton.outside.begin(), skeleton.outside.end(), solution.outside.begin(),
                      solution.outside.end());
    if (skeleton_line != skeleton.outside.end() || solution_line != solution.outside.end()) {
      const auto show = [](const std::vector<std::string>& lines, auto at) {
        return at == lines.end() ? std::string("(end of file)") : "'" + *at + "'";
      };
      problems.push_back(name + "/" + file +
                         ": skeleton and solution differ outside the TODO regions: skeleton " +
                         show(skeleton.outside, skeleton_line) + ", solution " +
                         show(solution.outside, solution_line));
    }
  }
  if (regions == 0) problems.push_back("exercises/" + name + ": no TODO(" + tag + ") region");
  if (regions > 0 && !any_region_differs) {
    problems.push_back("exercises/" + name +
                       ": every region is the solution's, so the skeleton leaves nothing to do "
                       "(scripts/grade --reset " +
                       tag.substr(2) + " restores it)");
  }
  return problems;
}

// What is wrong with the exercises under @p root; empty when nothing is.
std::vector<std::string> check_tree(const fs::path& root) {
  std::vector<std::string> problems;
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(root / "exercises")) {
    if (entry.is_directory()) names.insert(entry.path().filename().string());
  }
  if (names.empty()) problems.push_back("exercises/: no exercise");
  const std::string index = read_text(root / "exercises" / "README.md");
  for (const std::string& name : names) {
    if (index.find("`" + name + "`") == std::string::npos) {
      problems.push_back("exercises/README.md: does not list `" + name + "`");
    }
  }
  for (const std::string& name : names) {
    for (std::string& problem : check_exercise(root, name))
      problems.push_back(std::move(problem));
  }
  if (fs::is_directory(root / "solutions")) {
    for (const auto& entry : fs::directory_iterator(root / "solutions")) {
      const std::string name = entry.path().filename().string();
      if (entry.is_directory() && !names.count(name)) {
        problems.push_back("solutions/" + name + ": no exercises/" + name);
      }
    }
  }
  return problems;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines)
    out += line + "\n";
  return out;
}

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// A throwaway tree holding one well-formed exercise, removed on destruction.
class ScratchTree {
 public:
  ScratchTree()
      : root_(fs::temp_directory_path() / ("normlab_exercises_" + std::to_string(getpid()))) {
    fs::remove_all(root_);
    write_text(root_ / "exercises" / "README.md", "| `ex09-sample` | chapter 09 | a sample |\n");
    for (const char* variant : {"exercises", "solutions"}) {
      const fs::path dir = root_ / variant / "ex09-sample";
      const bool solved = std::string(variant) == "solutions";
      write_text(dir / "README.md", "# ex09: sample\n");
      write_text(dir / "sample.cu",
                 std::string("int answer() {\n") + "  // TODO(ex09) begin: return the answer\n" +
                     (solved ? "  return 42;\n" : "  return 0;\n") + "  // TODO(ex09) end\n}\n");
    }
  }
  ~ScratchTree() { fs::remove_all(root_); }
  ScratchTree(const ScratchTree&) = delete;
  ScratchTree& operator=(const ScratchTree&) = delete;

  const fs::path& root() const { return root_; }
  fs::path file(const std::string& variant, const std::string& name) const {
    return root_ / variant / "ex09-sample" / name;
  }
  // Replaces the first @p from in @p variant's sample.cu with @p to.
  void edit(const std::string& variant, const std::string& from, const std::string& to) const {
    std::string text = read_text(file(variant, "sample.cu"));
    const std::size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    write_text(file(variant, "sample.cu"), text.replace(at, from.size(), to));
  }

 private:
  fs::path root_;
};

}  // namespace

TEST_CASE("every exercise matches its solution outside the TODO regions", "[exercises]") {
  const std::vector<std::string> problems = check_tree(NORMLAB_SOURCE_DIR);
  INFO(joined(problems));
  CHECK(problems.empty());
}

TEST_CASE("the exercise checker finds each planted defect", "[exercises]") {
  const ScratchTree tree;
  REQUIRE(check_tree(tree.root()).empty());
  std::string expected;

  SECTION("a line changed outside a region") {
    tree.edit("solutions", "int answer", "long answer");
    expected = "differ outside the TODO regions";
  }
  SECTION("a region that never ends") {
    tree.edit("exercises", "  // TODO(ex09) end\n", "");
    expected = "never ends";
  }
  SECTION("an end without a begin") {
    tree.edit("solutions", "// TODO(ex09) begin: return the answer", "// begin: return the answer");
    expected = "end without a begin";
  }
  SECTION("a region opened inside another") {
    tree.edit("exercises", "  return 0;\n", "  // TODO(ex09) begin: nested\n");
    expected = "begin inside a region";
  }
  SECTION("a marker of another exercise") {
    tree.edit("exercises", "TODO(ex09) end", "TODO(ex08) end");
    expected = "marker ex08 in exercise ex09";
  }
  SECTION("a marker without its description") {
    tree.edit("exercises", "begin: return the answer", "begin");
    expected = "malformed marker";
  }
  SECTION("a solution that is the skeleton") {
    tree.edit("solutions", "return 42;", "return 0;");
    expected = "the skeleton leaves nothing to do";
  }
  SECTION("a skeleton without regions") {
    for (const char* variant : {"exercises", "solutions"}) {
      write_text(tree.file(variant, "sample.cu"), "int answer() { return 42; }\n");
    }
    expected = "no TODO(ex09) region";
  }
  SECTION("a file only the solution has") {
    write_text(tree.file("solutions", "extra.cuh"), "#pragma once\n");
    expected = "extra.cuh: not in exercises/";
  }
  SECTION("no README") {
    fs::remove(tree.file("exercises", "README.md"));
    fs::remove(tree.file("solutions", "README.md"));
    expected = "no README.md";
  }
  SECTION("READMEs that differ") {
    write_text(tree.file("solutions", "README.md"), "# ex09: sample, solved\n");
    expected = "README.md: skeleton and solution differ";
  }
  SECTION("a missing newline at the end of the file") {
    std::string text = read_text(tree.file("solutions", "sample.cu"));
    text.pop_back();
    write_text(tree.file("solutions", "sample.cu"), text);
    expected = "differ outside the TODO regions";
  }
  SECTION("no solution") {
    fs::remove_all(tree.root() / "solutions" / "ex09-sample");
    expected = "no solutions/ex09-sample";
  }
  SECTION("a solution without an exercise") {
    fs::create_directories(tree.root() / "solutions" / "ex10-orphan");
    expected = "solutions/ex10-orphan: no exercises/ex10-orphan";
  }
  SECTION("an exercise the list in exercises/README.md leaves out") {
    write_text(tree.root() / "exercises" / "README.md", "# Exercises\n");
    expected = "exercises/README.md: does not list `ex09-sample`";
  }
  SECTION("a badly named exercise directory") {
    fs::create_directories(tree.root() / "exercises" / "ex1_bad");
    expected = "must be named exNN-slug";
  }

  const std::string problems = joined(check_tree(tree.root()));
  INFO(problems);
  CHECK_THAT(problems, Catch::Contains(expected));
}
