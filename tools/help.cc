#include "tools/help.h"

#include <algorithm>

#include "compiler/gpu/gpu_compile.h"
#include "passes/pass.h"
#include "runtime/artifact.h"
#include "runtime/target.h"

namespace mlc::cli {

namespace {

using K = FlagDoc::Kind;

const FlagDoc kMesh = {"mesh", "AXIS=N[,AXIS=N...]",
                       "a device mesh of named axes, e.g. dp=2, dp=2,fsdp=2 (HSDP), tp=2, dp=2,tp=2. dp, ddp and fsdp "
                       "are data axes: the batch is split over them; the model file's \"parallel\" plan shards "
                       "weights over tp; pp=N runs a pipeline of N ranks (parallel.pipeline: cuts, micro-batches, "
                       "schedule), beside data axes and tp too (dp=2,pp=2,tp=2: each stage sharded over them). Other axes (sp, cp, ep) are not implemented yet. "
                       "Default: the model file's parallel.mesh"};
const FlagDoc kMicrobatches = {"microbatches", "N",
                               "micro-batches per pipeline step (default: parallel.pipeline.microbatches, else the "
                               "pipeline's ranks)"};
const FlagDoc kSchedule = {"schedule", "gpipe|1f1b|interleaved|zb1p",
                           "the pipeline schedule (default: parallel.pipeline.schedule, else 1f1b)"};
const FlagDoc kVirtualStages = {"virtual-stages", "V",
                                "pipeline stages per rank, 2 or more for the interleaved schedule (default: "
                                "parallel.pipeline.virtual_stages, else 1)"};

std::string pass_listing() {
  return "\npasses and their options (NAME{option=value,...}):\n" + pass_options_help();
}
const FlagDoc kZero = {"zero", "0|1|2|3",
                       "ZeRO stage over the last data axis: 1 and 2 shard the optimizer state, 3 the parameters too "
                       "(FSDP). Needs a mesh. Default: the model file's parallel.zero, else 0"};

const std::vector<CommandDoc>& docs() {
  static const std::vector<CommandDoc> d = {
      {"run", "MODEL.json|MODEL.mlc|MODEL.mlcx",
       "train a model (or, with --eval, evaluate it)",
       "Trains from the model file's \"train\" section: progress on stderr, a summary on stdout. MODEL.json is\n"
       "compiled now; MODEL.mlcx was compiled by `mlc compile`. On a mesh the ranks run as threads of this\n"
       "process, or one process per rank under `mpirun -np N mlc run ... --mesh ...`.\n"
       "WARNING: an artifact (MODEL.mlcx) holds native machine code that runs with your privileges, like a\n"
       "shared library or a pickle that torch.load unpickles: its checksums catch accidents, not intent. Run\n"
       "only artifacts you built or trust, or check the code first with --verify-code (docs/limits.md, Trust).",
       {{"eval", "",
         "evaluate instead of training: mean loss (and accuracy for classifiers) over the eval split; on a mesh "
         "spread over its ranks",
         K::plain_switch},
        {"init", "F.safetensors|seed",
         "start from these parameters (safetensors with PyTorch's state_dict names, or a checkpoint) instead of "
         "the model's initialization; `seed` names that initialization (train.seed, or --seed) explicitly; "
         "--eval needs one of them (./seed is a file)"},
        {"data", "F.safetensors", "read the data from F instead of the model file's data.file"},
        {"epochs", "N", "train N epochs instead of the model file's train.epochs or train.steps"},
        {"steps", "N", "train N optimizer steps instead (not with --epochs)"},
        {"seed", "S", "seed of the parameter initialization and of shuffling (default: train.seed)"},
        {"metrics", "OUT.jsonl",
         "write a JSON line per step ({\"step\", \"epoch\", \"loss\"}), per evaluation ({\"epoch\", \"step\", "
         "\"eval\"}), per completed epoch ({\"epoch\", \"train\"}: the mean loss), per gradient statistics "
         "({\"epoch\", \"step\", \"grads\"}) and the run's facts first ({\"run\"}); every record written at once; --resume keeps the records before "
         "its checkpoint's step and appends. "
         "docs/metrics.md is the schema; `mlc report` draws it"},
        {"eval-every", "N",
         "also evaluate after every N optimizer steps (besides each epoch's end); 0: off. Default: train.eval_every"},
        {"grad-stats-every", "N",
         "every N steps (steps 0, N, 2N, ...) record each parameter's gradient mean |g|, max |g| and L2 norm, "
         "after backward and before clipping and the update; 0: off. Default: train.grad_stats_every"},
        {"grad-accum", "K",
         "gradient accumulation: each optimizer step runs forward and backward on K micro-batches of "
         "batch_size/K examples (K must divide it), averages their gradients and updates once, as PyTorch's "
         "(loss / K).backward() per micro-batch; the step's loss is the micro-batches' mean. One device only. "
         "Default: train.grad_accumulation_steps, else 1"},
        {"save", "F.safetensors", "write the trained parameters at the end, with their state_dict names"},
        {"save-best", "F.safetensors", "keep the best parameters by an evaluation metric: written at every evaluation "
                                       "that improves on the best so far (step, metric and value in the metadata)"},
        {"best-metric", "loss|accuracy", "the metric of --save-best: lowest eval loss, or highest eval accuracy "
                                         "(default: accuracy for a classifier, else loss)"},
        {"checkpoint-dir", "DIR",
         "where checkpoints go: parameters, optimizer state and the position in the run, written atomically"},
        {"checkpoint-every", "STEPS", "write a checkpoint every STEPS steps (needs --checkpoint-dir)"},
        {"keep-checkpoints", "K", "keep only the newest K checkpoints of --checkpoint-dir"},
        {"resume", "",
         "continue from the newest complete checkpoint of --checkpoint-dir; the continued run is bit-identical "
         "to an uninterrupted one",
         K::plain_switch},
        {"dump-grads", "F.safetensors", "write the first step's gradients, by parameter name (whole, on a mesh too)"},
        {"start-step", "N",
         "the global step --init's parameters come from (a restart from a PyTorch checkpoint): the schedule, the "
         "step counter and the data order continue from there"},
        {"device", "cpu|host-gpu|cuda[:N]",
         "where the compiled step runs: cpu (default); host-gpu: the GPU kernels (CUDA's very text, as OpenCL C) "
         "on this CPU through OpenCL (PoCL), GEMMs and collectives on the CPU's libraries; cuda: an NVIDIA GPU"},
        {"no-graph", "",
         "cuda: launch the step instruction by instruction instead of replaying it as one CUDA graph (for "
         "debugging: a failing kernel is then named)",
         K::plain_switch},
        {"no-gemm-epilogues", "",
         "cuda, host-gpu: GEMMs without cuBLASLt epilogues (bias, ReLU, GELU and bias gradients stay kernels of "
         "their own): where cuBLASLt has no algorithm for an epilogue on this GPU",
         K::plain_switch},
        {"allow-tf32", "",
         "cuda: f32 GEMMs may use TF32 tensor cores (10-bit mantissas, as PyTorch's allow_tf32); off by default, so "
         "f32 stays f32",
         K::plain_switch},
        {"backend", "compiled|interp",
         "compiled (default): fused kernels and GEMM libraries; interp: the reference interpreter, op by op "
         "(model files only)"},
        {"profile", "PROFILE.json",
         "time every instruction of the compiled train step and evaluation and print a table per function on "
         "stderr; --profile=PROFILE.json also writes the numbers as JSON",
         K::optional_value},
        kMesh,
        kZero,
        kMicrobatches,
        kSchedule,
        kVirtualStages,
        {"plan", "plan.json",
         "run the parallel plan of a plan file (mlc plan --search -o plan.json): its mesh, ZeRO stage, sequence "
         "parallelism and pipeline, in place of --mesh and the pipeline flags"},
        {"comm-timeout", "S",
         "seconds a collective waits for the other ranks before every rank stops with an error naming the "
         "collective and the missing rank (default 300; needs a mesh)"},
        {"verify-code", "",
         "for an artifact you did not build: before running any of its code, compile every kernel again from "
         "the kernel IR it carries and refuse the artifact unless each object is byte for byte what this mlc "
         "generates, and each kernel reads and writes only inside its buffers (needs the mlc version that "
         "compiled it; costs a compile of every kernel). The rest of the manifest is checked as always",
         K::plain_switch}}},
      {"compile", "MODEL.json|MODEL.mlc",
       "compile a model ahead of time into an artifact (MODEL.mlcx)",
       "Compiles the training and evaluation functions for the batch sizes a run on the data uses (the data file\n"
       "must be readable) and writes them, with the model's settings and kernel objects, to one file that\n"
       "`mlc run MODEL.mlcx` trains from without a frontend, passes or code generation.",
       {{"output", "MODEL.mlcx", "the artifact to write (also -o; default: the model file's name with .mlcx)"},
        {"target", "cpu|host-gpu|cuda:sm_XX",
         "what to compile for: cpu (this machine's CPU features), host-gpu (GPU kernels as OpenCL C for the host "
         "device), cuda:sm_XX (cubins for that GPU architecture, compiled by NVRTC without a GPU)"},
        {"emit-source", "DIR",
         "GPU targets: also write every kernel as a self-contained CUDA C file, DIR/<symbol>.cu (nvcc compiles "
         "it as it is)"},
        {"data", "F.safetensors", "size the batches from F instead of the model file's data.file"},
        kMesh,
        kZero,
        kMicrobatches,
        kSchedule}},
      {"plan", "MODEL.json|MODEL.mlc",
       "parameters, memory, FLOPs and, on a mesh, placements and collectives of a training step",
       "Prints, for train.batch_size: parameters; bytes of parameters, gradients, optimizer state and the\n"
       "activations kept for backward; FLOPs per step; the compiled step's instructions, arena and liveness\n"
       "lower bound. With a mesh also the placement of every parameter and optimizer-state tensor, per-device\n"
       "bytes, communication per mesh axis and the collective ledger (why each collective was inserted).\n"
       "With a pp axis (--mesh pp=4) or the model file's parallel.pipeline: the stage cuts, the values\n"
       "crossing each cut, the schedule's grid timed by the stages' FLOPs, the bubble and the activations\n"
       "each rank stashes, then what each rank of `mlc run --mesh pp=N` holds (parameters, optimizer state,\n"
       "train-step arena, schedule buffers), predicted as the run measures it, and the pipelined step's\n"
       "collective ledger: per value crossing a cut, the send/recv of the activation and of its gradient\n"
       "(producer and model-file location, stage and rank pair, bytes per micro-batch and per step, estimated\n"
       "time), the collectives of the stages' functions sharded over the other axes (tp, the data axes'\n"
       "gradient reductions, ZeRO's gathers) times their calls, the all_reduces of tied weights' gradients\n"
       "and of the squared norms over pp, and of the loss; communication per step by pipeline rank and axis.\n"
       "--format svg prints only the pipeline's schedule as a Gantt chart (SVG, no scripts): a row per rank,\n"
       "a box per F/B/I/W action at the grid's times, sends as thin lines, ticks in ms (the grid's FLOPs at\n"
       "this host's GEMM rate, or --gflops), the bubble next to the textbook formula; a mesh without pp is\n"
       "an error.\n"
       "With --search --devices N: every plan for N devices (dp with ZeRO 0-3, tp with and without sequence\n"
       "parallelism where the model file has a tensor-parallel plan, pp with its micro-batches, schedules and\n"
       "virtual stages), costed from the compiled IR (GEMM FLOPs at this host's measured rate, bytes of the\n"
       "other instructions, a fixed cost per instruction, the collective ledger's latency and bandwidth, the\n"
       "simulated pipeline bubble), those over --memory-cap dropped, the best printed with their step time,\n"
       "memory per rank and why; plans that do not validate would come after the runnable ones.",
       {{"format", "text|json|svg",
         "text (default), one JSON object, or svg: the pipeline schedule's Gantt chart (with --mesh pp=N or the "
         "model file's parallel.pipeline)"},
        {"mesh", "AXIS=N[,AXIS=N...]", "as for run; here also pp=N, the pipeline ranks (default: the model file's "
                                       "parallel.pipeline.stages)"},
        kZero,
        kMicrobatches,
        kSchedule,
        kVirtualStages,
        {"search", "", "search the parallel plans for --devices N (instead of planning one)", K::plain_switch},
        {"devices", "N", "with --search: the devices to plan for"},
        {"memory-cap", "BYTES",
         "with --search: drop plans whose largest rank needs more (parameters, optimizer state, arenas, schedule "
         "buffers, batch); bytes, or with a unit: 512MiB, 16GiB"},
        {"runnable-only", "", "with --search: only plans mlc run runs (every plan of the search does today)",
         K::plain_switch},
        {"gflops", "G",
         "with --search: the f32 GEMM rate to cost with instead of this host's (measured once and kept in the "
         "kernel cache); with --format svg: the rate that turns the grid's FLOPs into ms"},
        {"top", "K", "with --search: print the best K plans (default 10)"},
        {"output", "plan.json", "with --search: write the best runnable plan for mlc run --plan (also -o)"}}},
      {"ir", "MODEL.json|MODEL.mlc",
       "print a model's IR, after any pass",
       "Prints the textual IR the model file builds; --after runs the pipeline (autocast with a mixed-precision\n"
       "policy, autodiff, optimizer, decompose, canonicalize, sharding with a mesh) up to a pass. Tests and debug builds verify the IR after every pass\n"
       "(MLC_VERIFY_PASSES=1 turns it on anywhere).",
       {{"after", "PASS|all|fusion|lower",
         "run the pipeline up to PASS; all: print every stage; fusion: with fused kernels as fusion ops; lower: "
         "each function's executable"},
        {"batch", "N", "build the model at batch N (default: train.batch_size)"},
        {"phase", "NAME",
         "a model trained in phases (train.phases): that phase's functions (its loss alone, the other phases' "
         "parameters frozen; its optimizer)"},
        {"target", "cpu|host-gpu|cuda:sm_XX",
         "with --after lower: lower for that target; GPU targets print each kernel's launch (grid, block, shared "
         "memory)"},
        {"emit", "mlir", "print the module in upstream MLIR dialects (func, arith, math, tensor, linalg)"},
        {"timings", "", "print each pass's time on stderr (with --after)", K::plain_switch},
        kMesh,
        kZero}},
      {"opt", "FILE.mlir",
       "parse, verify and transform textual IR",
       "Reads textual IR (what `mlc ir` prints), verifies it, runs the passes given and prints the result.",
       {{"passes", "a,b{key=value},c",
         "passes to run in order, each with its options (below); sharding runs over the module's mesh attribute"}},
       pass_listing},
      {"convert", "MODEL.json|MODEL.mlc",
       "write a model file in the other form: JSON <-> the model language (.mlc)",
       "Loads the model file (so its mistakes are reported first) and writes it in the other form, or in the\n"
       "form -o's extension names. Both forms build the same IR (docs/model-language.md); comments are not kept.",
       {{"output", "OUT.mlc|OUT.json", "the file to write, atomically (also -o; default: stdout, in the other form)"}}},
      {"predict", "MODEL.json|MODEL.mlc",
       "the model's outputs for every example of a data split, from trained parameters",
       "Builds @predict, the model's forward in evaluation mode (no dropout, BatchNorm's running statistics)\n"
       "returning what its loss compares with the targets (a classifier's logits, a regression's values), and\n"
       "runs it compiled over the split in batches, in the data's order. Only the inputs the forward reads are\n"
       "loaded, so the data file need not hold targets. With -o, writes one tensor `outputs` [examples, ...] with\n"
       "the model, split and data file in the metadata; without it, prints a summary and the first examples'\n"
       "outputs (a classifier's predicted class).",
       {{"init", "F", "the trained parameters: mlc run --save's file, an mlc checkpoint (whole or a sharded "
                      "checkpoint's index) or PyTorch's weights as safetensors"},
        {"data", "F", "the data file (default: the model file's data.file)"},
        {"split", "eval|train", "which of the model file's data mappings to read (default eval)"},
        {"batch", "N", "examples per call (default: train.eval_batch_size, else up to 1024)"},
        {"value", "PATH", "the output of the module at state_dict path PATH instead (its first call in the forward: "
                          "a VAE's fc21, a block's layers.1), as a forward hook on it would see it"},
        {"backend", "compiled|interp", "the compiled code (default) or the reference interpreter"},
        {"output", "OUT.safetensors", "the file to write (also -o)"}}},
      {"generate", "MODEL.json|MODEL.mlc",
       "sample text from a causal language model, compiled, with a key/value cache",
       "Builds @prefill (the forward over the model's window T, filling each CausalSelfAttention's key/value\n"
       "cache) and @decode (one token at a position, reading and extending the caches), and samples\n"
       "--max-new-tokens tokens after the prompt: greedy at --temperature 0, else softmax(logits / T) after\n"
       "--top-k and --top-p, drawn with --seed. As nanoGPT's generate, the context is the last T tokens: past the\n"
       "window every token runs @prefill. A model without CausalSelfAttention (or with attention written by hand\n"
       "in a forward, found by checking the first step against @prefill) runs @prefill for every token, and a note\n"
       "says so. Text goes in and out through the vocabulary of the data file's metadata (mlc data text); without\n"
       "one, tokens are ids. Prints the prompt and the new tokens on stdout, a summary on stderr.",
       {{"init", "F|seed", "the trained parameters: mlc run --save's file, an mlc checkpoint or PyTorch's weights; "
                           "seed: train.seed's initialization (for timing)"},
        {"prompt", "TEXT", "the prompt, as text in the data file's vocabulary"},
        {"prompt-tokens", "IDS", "the prompt as token ids, separated by spaces or commas"},
        {"max-new-tokens", "N", "how many tokens to generate"},
        {"temperature", "T", "divides the logits before sampling (default 1; 0: greedy, the largest logit)"},
        {"top-k", "K", "sample among the K largest logits only"},
        {"top-p", "P", "sample among the most probable tokens whose probabilities sum to P (default 1)"},
        {"seed", "S", "the sampler's seed (default 0)"},
        {"data", "F", "the token file whose metadata holds the vocabulary (default: the model file's data.file)"},
        {"no-cache", "", "run @prefill over the window for every token (no key/value cache)", K::plain_switch},
        {"print-tokens", "", "print token ids, not text", K::plain_switch},
        {"timing", "", "print the median time per token by prefix length on stderr", K::plain_switch},
        {"backend", "compiled|interp", "the compiled code (default) or the reference interpreter"}}},
      {"report", "METRICS.jsonl",
       "draw a training run's metrics file as one self-contained HTML page",
       "Reads the metrics file of `mlc run --metrics METRICS.jsonl` (docs/metrics.md) and writes one HTML page with\n"
       "no scripts and no network access: the run's facts, the training loss per step with the epochs' means, the\n"
       "evaluations' loss and accuracy over steps (train.eval_every), and the gradient flow (train.grad_stats_every):\n"
       "mean |g| per parameter for the recorded steps, max and mean |g| bars of the last one, and each parameter's\n"
       "gradient norm over steps, as inline SVG. A malformed file is an error naming its line.",
       {{"output", "REPORT.html", "the page to write (also -o; default: the metrics file's name with .html in place of .jsonl)"}}},
      {"data", "FILE.safetensors | import FILE... -o F.safetensors | text FILE.txt -o F.safetensors --seq N",
       "look into a data file, or make one from numpy arrays, CSV tables or text",
       "mlc data FILE.safetensors: every tensor (name, dtype, shape, and min, max and mean of its values) and the\n"
       "metadata.\n"
       "mlc data import FILE... -o F.safetensors: numpy's .npy and .npz files (float16/32/64, int8 to int64, uint8\n"
       "to uint32, bool; narrow and unsigned integers become i64; Fortran order is made C order; big-endian data\n"
       "is refused) and CSV tables (numbers, an optional header row) as one safetensors file, without Python. An\n"
       ".npy file is the tensor named after the file (x.npy: x), an .npz file one tensor per member (numpy.savez's\n"
       "names), a CSV file one 2-D tensor [rows, columns] named after the file, or with --columns a tensor [rows]\n"
       "per column, named by the header (else NAME_0, NAME_1, ...); a CSV tensor is i64 when every cell is an\n"
       "integer, else f32.\n"
       "mlc data text FILE.txt -o F.safetensors --seq N: token ids for a language model, as examples/tiny_gpt's\n"
       "data: \"tokens\" i64 [rows, N + 1], each row N + 1 consecutive tokens starting where the previous row's\n"
       "last one is (map inputs \"tokens[:, :-1]\" and targets \"tokens[:, 1:]\"), the last rows as \"eval_tokens\"\n"
       "with --eval-fraction; the vocabulary in the metadata: \"level\", \"vocab\" (a JSON list of the characters,\n"
       "in id order; none at byte level, where the id is the byte), \"vocab_size\", \"seq\", \"source\".",
       {{"format", "text|json", "mlc data FILE: text (default) or one JSON object"},
        {"output", "F.safetensors", "import, text: the file to write, atomically (also -o)"},
        {"columns", "", "import: a tensor per CSV column instead of one 2-D tensor per file", K::plain_switch},
        {"name", "NAME", "import: the tensor's name (or the columns' prefix) for the one file imported, instead of "
                         "its file name"},
        {"dtype", "f32|f64|f16|bf16|i32|i64|bool",
         "import: convert every tensor to this dtype (PyTorch's names too: float32, long, ...); a value the dtype "
         "cannot hold (2.5 as i64, 1e40 as f32) is an error naming it"},
        {"seq", "N", "text: tokens per sequence (the model's context length)"},
        {"level", "char|byte", "text: a token per Unicode character of the UTF-8 text (default), or per byte"},
        {"eval-fraction", "F", "text: the share of the sequences, from the end, written as eval_tokens (default 0: "
                               "none)"}}},
      // ---- custom ops (docs/model-format.md "custom_ops")
      {"check-grad", "MODEL.json|MODEL.mlc",
       "check each custom op's declared backward against finite differences of its forward",
       "For each custom op, at the argument shapes of its call sites in the model (built at train.batch_size),\n"
       "in f64: random inputs uniform in [-1, 1] and random cotangents u of the output; the backward's gradient\n"
       "of <u, f(x)> is compared, element by element (at most 4096 random elements per input), with the central\n"
       "difference (f(x + h e) - f(x - h e)) / 2h, h = 1e-5 max(1, |x_e|). An input passes when every error is\n"
       "at most 1e-6 max(1, |gradient|). Prints one line per input with its max abs and rel error; exits 1\n"
       "naming the op and input when one fails.",
       {{"seed", "S", "seed of the random inputs and cotangents (default 0)"},
        {"cotangents", "K", "random output cotangents per op, 1 to 64 (default 3)"}}},
      {"help", "[COMMAND]", "explain mlc, or one command and every flag it takes", "", {}},
      {"version", "", "print mlc's version, its artifact format and the targets, with whether this machine compiles for and runs each", "", {}},
  };
  return d;
}

// Wraps `text` at 100 columns, every line after the first indented by `indent`.
std::string wrap(std::string_view text, size_t indent, size_t first_width) {
  std::string out, line;
  size_t width = first_width;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(' ', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view word = text.substr(pos, end - pos);
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + "\n" + std::string(indent, ' ');
      line.clear();
      width = 100 - indent;
    }
    line += (line.empty() ? "" : " ") + std::string(word);
    pos = end + 1;
  }
  return out + line;
}

std::string flag_text(const FlagDoc& f) {
  std::string s = std::string("--") + f.name;
  if (f.kind == K::valued) s += std::string(" ") + f.value;
  if (f.kind == K::optional_value) s += std::string("[=") + f.value + "]";
  return s;
}

}  // namespace

const std::vector<CommandDoc>& command_docs() { return docs(); }

const CommandDoc* find_command_doc(std::string_view name) {
  for (const CommandDoc& d : docs())
    if (name == d.name) return &d;
  return nullptr;
}

std::string overview_help() {
  std::string s = "mlc: a deep-learning compiler: model files in, compiled training steps out.\n\nusage: mlc COMMAND [ARGS]\n\ncommands:\n";
  size_t width = 0;  // the summaries start in one column
  for (const CommandDoc& d : docs())
    width = std::max(width, std::string_view(d.name).size() + std::string_view(d.operands).size() + 5);
  for (const CommandDoc& d : docs()) {
    std::string head = std::string("  ") + d.name + " " + d.operands;
    head.resize(width, ' ');
    s += head + d.summary + "\n";
  }
  s += "\n`mlc help COMMAND` (or `mlc COMMAND --help`) explains a command and every flag it takes.\n"
       "\nA model file is JSON (MODEL.json) or the model language (MODEL.mlc); `mlc convert` turns one into\n"
       "the other. MODEL.mlcx is an artifact of `mlc compile`.\n"
       "\nexit status: 0 success; 1 an error in the input (a diagnostic on stderr naming the file, line and\n"
       "column or field); 2 a usage error.\n"
       "\nenvironment:\n"
       "  MLC_THREADS=N        threads of the compiled kernels and BLAS (default 1; one per rank on a mesh)\n"
       "  MLC_CACHE_DIR=DIR    where compiled kernels are cached between runs\n"
       "  MLC_VERIFY_PASSES=1  verify the IR after every pass\n";
  return s;
}

std::string command_names() {
  std::string s;
  for (const CommandDoc& d : docs()) s += (s.empty() ? "" : ", ") + std::string(d.name);
  return s;
}

std::string usage_line(const CommandDoc& doc) {
  std::string s = std::string("usage: mlc ") + doc.name;
  if (*doc.operands) s += std::string(" ") + doc.operands;
  if (!doc.flags.empty()) s += " [flags]";
  return s + "; `mlc help " + doc.name + "` explains them";
}

std::string command_help(const CommandDoc& doc) {
  std::string s = std::string("usage: mlc ") + doc.name + (*doc.operands ? std::string(" ") + doc.operands : "") +
                  (doc.flags.empty() ? "" : " [flags]") + "\n\n" + doc.summary + ".\n";
  if (*doc.details) s += std::string("\n") + doc.details + "\n";
  if (doc.flags.empty()) return s;
  s += "\nflags:\n";
  for (const FlagDoc& f : doc.flags) {
    std::string head = "  " + flag_text(f);
    if (head.size() + 2 > 34) {
      s += head + "\n" + std::string(34, ' ');
    } else {
      head.resize(34, ' ');
      s += head;
    }
    s += wrap(f.help, 34, 100 - 34) + "\n";
  }
  if (doc.more) s += doc.more();
  return s;
}

bool parse_command_args(const CommandDoc& doc, const std::vector<std::string>& argv, Args& out, std::string& error) {
  std::vector<std::string> switches, valued, optional_valued;
  for (const FlagDoc& f : doc.flags)
    (f.kind == K::plain_switch ? switches : f.kind == K::valued ? valued : optional_valued).push_back(f.name);
  return parse_args(argv, switches, valued, out, error, optional_valued);
}

std::string version_text() {
  std::string s =
      "mlc " + std::string(rt::mlc_version()) + " (artifact format " + std::to_string(rt::kArtifactVersion) + ")\n";
  s += "targets:";
  for (std::string_view name : rt::known_target_names()) {
    std::string about;
    for (const std::string& part : {gpu::gpu_compiler_availability(std::string(name)), rt::target_availability(name)})
      if (!part.empty()) about += (about.empty() ? "" : "; ") + part;
    s += "\n  " + std::string(name) + (about.empty() ? "" : " (" + about + ")");
  }
  return s;
}

}  // namespace mlc::cli
