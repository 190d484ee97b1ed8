//===- Problem.cpp - The problems and what they share ---------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Each problem lives in its own folder and is listed here.
//
//===----------------------------------------------------------------------===//

#include "tle/Problems/Problem.h"

#include "tle/Support/Strings.h"

using namespace tle;
using namespace tle::problems;
using runtime::Status;

/// Creating a problem allocates nothing, so the registry holds factories
/// alone and asks each problem its name.
static std::unique_ptr<Problem> (*const factories[])() = {
    createPipesProblem,
    createSparseMLAProblem,
    createGemmProblem,
};

std::unique_ptr<Problem> problems::createProblem(const std::string &name) {
  for (auto create : factories)
    if (std::unique_ptr<Problem> problem = create(); problem->name() == name)
      return problem;
  return nullptr;
}

std::vector<std::string> problems::getProblemNames() {
  std::vector<std::string> names;
  for (auto create : factories)
    names.push_back(create()->name());
  return names;
}

Status Problem::checkKernelRules(const runtime::KernelInfo &) const {
  return Status::ok();
}

Status Problem::checkKernel(const runtime::KernelInfo &kernel) const {
  if (Status status = checkKernelRules(kernel); !status)
    return status;
  runtime::KernelArgs args;
  packArguments(kernel, args);
  if (Status status = args.check(kernel); !status)
    return Status::error(name() + ": " + status.message);
  return Status::ok();
}

Status problems::checkShapeKeys(const Shape &shape,
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

Status problems::getShapeInt(const Shape &shape, const std::string &key,
                             int64_t min, int64_t max, int64_t &value) {
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
