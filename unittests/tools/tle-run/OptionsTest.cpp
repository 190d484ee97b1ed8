//===- OptionsTest.cpp - tle-run's command line and --shape ---------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Options.h"

#include "gtest/gtest.h"

using namespace tle::run;
using tle::runtime::Status;

namespace {

Options parseOk(const std::vector<std::string> &args) {
  Options options;
  Status status = parseOptions(args, options);
  EXPECT_TRUE(status) << status.message;
  return options;
}

std::string parseError(const std::vector<std::string> &args) {
  Options options;
  Status status = parseOptions(args, options);
  EXPECT_FALSE(status);
  return status.message;
}

TEST(Shape, Pairs) {
  Shape shape;
  ASSERT_TRUE(parseShape("n=64,ctas=8", shape));
  EXPECT_EQ(shape.size(), 2u);
  EXPECT_EQ(shape["n"], "64");
  EXPECT_EQ(shape["ctas"], "8");
  // Repeated --shape options add up.
  ASSERT_TRUE(parseShape("k=v", shape));
  EXPECT_EQ(shape.size(), 3u);
}

TEST(Shape, Errors) {
  Shape shape;
  EXPECT_FALSE(parseShape("", shape));
  EXPECT_EQ(parseShape("n", shape).message,
            "--shape: 'n' is not of the form key=value");
  EXPECT_FALSE(parseShape("=3", shape));
  EXPECT_FALSE(parseShape("n=", shape));
  EXPECT_FALSE(parseShape("n=1,,m=2", shape));
  EXPECT_FALSE(parseShape("n=1,", shape));
  Shape twice;
  EXPECT_EQ(parseShape("n=1,n=2", twice).message,
            "--shape: 'n' is given twice");
}

TEST(Options, Defaults) {
  Options options = parseOk({"k.ptx", "--problem", "pipes"});
  EXPECT_EQ(options.kernelPath, "k.ptx");
  EXPECT_EQ(options.problem, "pipes");
  // Without --check or --bench, a run checks.
  EXPECT_TRUE(options.check);
  EXPECT_FALSE(options.bench);
  EXPECT_EQ(options.warmup, 10);
  EXPECT_EQ(options.reps, 100);
  EXPECT_EQ(options.watchdogSeconds, 10);
  EXPECT_EQ(options.seed, 1u);
}

TEST(Options, Everything) {
  Options options = parseOk({"--problem=pipes",
                             "k.mlir",
                             "--kernel",
                             "pipes",
                             "--metadata",
                             "m.json",
                             "--shape",
                             "n=13",
                             "--shape=ctas=2",
                             "--seed",
                             "99",
                             "--bench",
                             "--warmup",
                             "0",
                             "--reps=7",
                             "--watchdog",
                             "2.5",
                             "--json",
                             "r.json",
                             "--device",
                             "1",
                             "--no-verify-pipes",
                             "-v"});
  EXPECT_EQ(options.kernelName, "pipes");
  EXPECT_EQ(options.metadataPath, "m.json");
  EXPECT_EQ(options.shape.size(), 2u);
  EXPECT_EQ(options.seed, 99u);
  EXPECT_FALSE(options.check);
  EXPECT_TRUE(options.bench);
  EXPECT_EQ(options.warmup, 0);
  EXPECT_EQ(options.reps, 7);
  EXPECT_EQ(options.watchdogSeconds, 2.5);
  EXPECT_EQ(options.jsonPath, "r.json");
  EXPECT_EQ(options.device, 1);
  EXPECT_TRUE(options.noVerifyPipes);
  EXPECT_TRUE(options.verbose);
}

TEST(Options, ModesNeedNoKernel) {
  EXPECT_TRUE(parseOk({"--probe"}).probe);
  EXPECT_TRUE(parseOk({"--help"}).help);
  EXPECT_TRUE(parseOk({"--list-problems"}).listProblems);
}

TEST(Options, UsageErrors) {
  EXPECT_EQ(parseError({}), "no kernel file given");
  EXPECT_EQ(parseError({"k.ptx"}), "--problem is required");
  EXPECT_EQ(parseError({"k.ptx", "--problem"}), "--problem needs a value");
  EXPECT_EQ(parseError({"k.ptx", "--frobnicate"}),
            "unknown option '--frobnicate'");
  EXPECT_EQ(parseError({"a.ptx", "b.ptx"}),
            "more than one kernel file: 'a.ptx' and 'b.ptx'");
  EXPECT_EQ(parseError({"k.ptx", "--problem", "p", "--reps", "0", "--bench"}),
            "--reps needs a positive integer, not '0'");
  EXPECT_EQ(parseError({"k.ptx", "--problem", "p", "--reps", "5"}),
            "--warmup and --reps need --bench");
  EXPECT_EQ(parseError({"k.ptx", "--problem", "p", "--watchdog", "0"}),
            "--watchdog needs a positive number of seconds, not '0'");
  EXPECT_EQ(parseError({"k.ptx", "--problem", "p", "--seed", "-1"}),
            "--seed needs a non-negative integer, not '-1'");
  EXPECT_EQ(parseError({"k.ptx", "--problem", "p", "--check=yes"}),
            "--check takes no value");
  EXPECT_EQ(parseError({"k.ptx", "--problem", "p", "--device", "x"}),
            "--device needs a non-negative integer, not 'x'");
  EXPECT_EQ(parseError({"k.ptx", "--problem="}),
            "--problem needs a non-empty value");
}

} // namespace
