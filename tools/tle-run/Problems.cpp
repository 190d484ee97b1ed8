//===- Problems.cpp - The problems tle-run knows --------------------------===//
//
// Each problem lives in its own file and is listed here.
//
//===----------------------------------------------------------------------===//

#include "Problem.h"

#include "tle/Support/Strings.h"

using namespace tle;
using namespace tle::run;
using runtime::Status;

namespace {
struct Entry {
  const char *name;
  std::unique_ptr<Problem> (*create)();
};
} // namespace

static const Entry problems[] = {
    {"pipes", createPipesProblem},
    {"sparse_mla", createSparseMLAProblem},
    {"gemm", createGemmProblem},
};

std::unique_ptr<Problem> run::createProblem(const std::string &name) {
  for (const Entry &entry : problems)
    if (name == entry.name)
      return entry.create();
  return nullptr;
}

std::vector<std::string> run::getProblemNames() {
  std::vector<std::string> names;
  for (const Entry &entry : problems)
    names.push_back(entry.name);
  return names;
}

Status run::checkShapeKeys(const Shape &shape,
                           const std::vector<std::string> &known,
                           const std::string &problem) {
  for (const auto &entry : shape) {
    bool found = false;
    for (const std::string &key : known)
      found |= key == entry.first;
    if (!found)
      return Status::error("problem '" + problem + "' has no shape key '" +
                           entry.first + "' (it has " + join(known) + ")");
  }
  return Status::ok();
}

Status run::getShapeInt(const Shape &shape, const std::string &key, int64_t min,
                        int64_t max, int64_t &value) {
  auto it = shape.find(key);
  if (it == shape.end())
    return Status::ok();
  const std::string &text = it->second;
  int64_t parsed;
  if (!parseInteger(text, parsed) || parsed < min || parsed > max)
    return Status::error("shape key '" + key + "' must be an integer from " +
                         std::to_string(min) + " to " + std::to_string(max) +
                         ", not '" + text + "'");
  value = parsed;
  return Status::ok();
}
