// Forward statements as PyTorch code writes them: flatten's defaults by
// spelling (torch.flatten and Tensor.flatten from dim 0, nn.Flatten from dim
// 1), and sizes bound to names (B, T, C = x.size(), T = x.shape[1], C // 4) as
// static integers that build the same IR as the literal numbers.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "frontends/model_file.h"
#include "tests/frontends/ir_text.h"

namespace mlc {
namespace {

using testing::ir_without_locations;

// A JSON model file: input x of `x_shape` and target t of `t_shape` (JSON
// lists), the model `model` (a JSON module) and an mse loss.
std::string model_json(const std::string& x_shape, const std::string& t_shape, const std::string& model) {
  return R"({"name": "t", "inputs": {"x": {"dtype": "f32", "shape": )" + x_shape +
         R"(}, "t": {"dtype": "f32", "shape": )" + t_shape + R"(}}, "model": )" + model +
         R"(, "loss": {"type": "mse", "targets": "t"}})";
}

// A container without layers that runs `statements`.
std::string forward_of(const std::vector<std::string>& statements) {
  std::string list;
  for (const std::string& s : statements) list += (list.empty() ? "\"" : ", \"") + s + "\"";
  return R"({"layers": {}, "forward": [)" + list + "]}";
}

// The IR (without locations) that `text` builds at batch 2, or its error.
std::string ir_or_error(const std::string& text, const std::string& path = "t.json") {
  auto mf = ModelFile::parse(text, path);
  if (!mf.ok()) return mf.error().message;
  auto m = mf->build(2);
  if (!m.ok()) return m.error().message;
  return ir_without_locations(*m);
}

TEST(ForwardFlatten, EachSpellingHasPyTorchsDefaults) {
  struct Case {
    std::string spelling, same_as, t_shape;
  };
  const std::vector<Case> cases = {
      {"return torch.flatten(x)", "return x.reshape(24)", "[24]"},
      {"return flatten(x)", "return x.reshape(24)", "[24]"},
      {"return F.flatten(x)", "return x.reshape(24)", "[24]"},
      {"return x.flatten()", "return x.reshape(24)", "[24]"},
      {"return torch.flatten(x, start_dim=0, end_dim=-1)", "return x.reshape(24)", "[24]"},
      {"return torch.flatten(x, 1)", "return x.reshape(2, 12)", "[2, 12]"},
      {"return x.flatten(1)", "return x.reshape(2, 12)", "[2, 12]"},
      {"return x.flatten(end_dim=1)", "return x.reshape(6, 4)", "[6, 4]"},
      {"return torch.flatten(x.sum())", "return x.sum().reshape(1)", "[1]"},  // a 0-d tensor becomes [1]
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.spelling);
    std::string want = ir_or_error(model_json("[2, 3, 4]", c.t_shape, forward_of({c.same_as})));
    ASSERT_EQ(want.find("error"), std::string::npos) << want;
    EXPECT_EQ(ir_or_error(model_json("[2, 3, 4]", c.t_shape, forward_of({c.spelling}))), want);
  }
  // nn.Flatten keeps start_dim=1.
  EXPECT_EQ(ir_or_error(model_json("[2, 3, 4]", "[2, 12]", R"({"type": "Flatten"})")),
            ir_or_error(model_json("[2, 3, 4]", "[2, 12]", forward_of({"return x.reshape(2, 12)"}))));
}

// Causal self-attention with sizes bound as nanoGPT's forward binds them.
const char* kAttentionMlc = R"(name = t

inputs:
    x: f32[batch, 8, 16]
    t: f32[batch, 8, 16]

model(x):
    q_proj = Linear(16, 16)
    k_proj = Linear(16, 16)
    v_proj = Linear(16, 16)
    c_proj = Linear(16, 16)
    forward:
)";

std::string attention_mlc(const std::vector<std::string>& statements) {
  std::string text = kAttentionMlc;
  for (const std::string& s : statements) text += "        " + s + "\n";
  return text + "\nloss = mse(targets=t)\n";
}

const std::vector<std::string> kAttentionTail = {
    "q = q_proj(x).view(B, T, 4, C // 4).transpose(1, 2)",
    "k = k_proj(x).view(B, T, 4, C // 4).transpose(1, 2)",
    "v = v_proj(x).view(B, T, 4, hs).transpose(1, 2)",
    "att = (q @ k.transpose(-2, -1)) * (1.0 / k.size(-1) ** 0.5)",
    "att = att.masked_fill(tril(ones(T, T)) == 0, -inf)",
    "att = softmax(att, dim=-1)",
    "y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)",
    "return c_proj(y)"};

TEST(ForwardSizes, AttentionWrittenAsPyTorchBuildsTheLiteralIR) {
  const std::vector<std::string> literal = {
      "q = q_proj(x).view(-1, 8, 4, 4).transpose(1, 2)",
      "k = k_proj(x).view(-1, 8, 4, 4).transpose(1, 2)",
      "v = v_proj(x).view(-1, 8, 4, 4).transpose(1, 2)",
      "att = (q @ k.transpose(-2, -1)) * 0.5",
      "att = att.masked_fill(tril(ones(8, 8)) == 0, -inf)",
      "att = softmax(att, dim=-1)",
      "y = (att @ v).transpose(1, 2).contiguous().view(-1, 8, 16)",
      "return c_proj(y)"};
  std::string want = ir_or_error(attention_mlc(literal), "t.mlc");
  ASSERT_NE(want.find("softmax"), std::string::npos) << want;
  const std::vector<std::vector<std::string>> heads = {
      {"B, T, C = x.size()", "hs = C // 4"},
      {"B, T, C = x.shape", "hs = C // 4"},
      {"B = x.size(0)", "T = x.shape[1]", "C = x.size(-1)", "hs = x.shape[-1] // 4"},
      {"size = x.size()", "B, T, C = size", "hs = size[2] // 4"},
      {"B, T, C = (x.size(0), x.size(1), x.size(2))", "hs = C // 2 // 2"},
  };
  for (const auto& head : heads) {
    SCOPED_TRACE(head[0]);
    std::vector<std::string> statements = head;
    statements.insert(statements.end(), kAttentionTail.begin(), kAttentionTail.end());
    EXPECT_EQ(ir_or_error(attention_mlc(statements), "t.mlc"), want);
  }
}

TEST(ForwardSizes, NumelNdimAndComparisonsAreNumbers) {
  std::string want = ir_or_error(model_json(R"(["batch", 8, 16])", R"(["batch", 8, 16])",
                                            forward_of({"return x.reshape(-1, 16).reshape(-1, 8, 16) * 1"})));
  ASSERT_EQ(want.find("error"), std::string::npos) << want;
  EXPECT_EQ(ir_or_error(model_json(R"(["batch", 8, 16])", R"(["batch", 8, 16])",
                                   forward_of({"n = x.numel()", "C = x.size(x.ndim - 1)",
                                               "rows = n // C", "wide = C > 8",
                                               "return x.reshape(rows, C).reshape(x.shape) * wide"}))),
            want);
}

TEST(ForwardSizes, MistakesAreExplicit) {
  // Each statement (then `return x`), the byte of it the error points at (-1:
  // the string's opening quote) and the message.
  struct Case {
    std::string statement;
    size_t offset;
    std::string message;
  };
  const std::string how = "; sizes unpack: B, T, C = x.size()";
  const std::vector<Case> cases = {
      {"B, T = x.size()", 0, "too many values to unpack: 3 values into 2 names (B, T)"},
      {"B, T, C, D = x.shape", 0, "not enough values to unpack: 3 values into 4 names (B, T, C, D)"},
      {"a, b = x", 0, "cannot unpack f32[2,3,4] into 2 names (a, b)" + how},
      {"a, b = x.size(0)", 0, "cannot unpack the number 2 into 2 names (a, b)" + how},
      {"a, 3 = x.size()", 3, "expected a name after ',', found '3'"},
      {"a b = x.size()", 0, "expected 'name = expr' or 'return expr', found 'a'"},
      {"a, b c = x.size()", 5, "expected ',' or '=' after 'b', found 'c'"},
      {"a, relu = x.size()", 3, "cannot assign to 'relu': it is a built-in function"},
      {"y = x // 2", 6, "'//' takes numbers (sizes: C // 4), found f32[2,3,4] and the number 2"},
      {"y = x.size(0) // 0", 14, "division by zero"},
      {"d = f32", size_t(-1), "cannot assign the dtype f32 to 'd'; only tensors, tuples of tensors and numbers (sizes) can be assigned"},
  };
  for (const Case& c : cases) {
    const std::string text = model_json("[2, 3, 4]", "[2, 3, 4]", forward_of({c.statement, "return x"}));
    const size_t col = text.find("\"forward\": [\"") + 13 + 1 + c.offset;
    EXPECT_EQ(ir_or_error(text), "t.json:1:" + std::to_string(col) + ": error: forward: " + c.message);
  }
  std::string last = ir_or_error(model_json("[2, 3, 4]", "[2, 3, 4]", forward_of({"B = x.size(0)", "return B"})));
  EXPECT_NE(last.find(": error: forward: the result must be a tensor, found the number 2"), std::string::npos) << last;
}

}  // namespace
}  // namespace mlc
