#include "driver/pipeline_step_schedule.h"

#include <algorithm>
#include <map>

#include "passes/optimizer.h"
#include "passes/pipeline_split.h"

namespace mlc {

std::optional<size_t> pipeline_axis(const Rank& rank) {
  for (size_t k = 0; k < rank.mesh.axes.size(); ++k)
    if (rank.mesh.axes[k].name == "pp") return k;
  return std::nullopt;
}

namespace {

std::string stage_fn(int stage, const char* name) { return "stage" + std::to_string(stage) + "." + name; }
std::string mb_buffer(int stage, int mb, const std::string& arg) {
  return "s" + std::to_string(stage) + ".mb" + std::to_string(mb) + "." + arg.substr(5);  // drops "pipe."
}

// What crosses a stage's boundaries, from its functions' signatures.
struct StageIo {
  std::vector<TensorType> received;  // pipe.in.K
  std::vector<size_t> received_grads;  // K of the float ones, in @loss_grad's result order
  std::vector<TensorType> sent;      // @forward's results
  size_t params = 0;                 // @loss_grad's {param} arguments
};

}  // namespace

Expected<PipelineRankView> PipelineRankView::of(const Rank& rank) {
  const std::optional<size_t> axis = pipeline_axis(rank);
  if (!axis || !rank.world) return make_error("mlc internal error: a pipeline rank without a pp axis");
  PipelineRankView v;
  v.program = &rank.functions->program();
  v.me = rank.coords[*axis];
  v.axis = *axis;
  v.data_ranks = rank.data_ranks;
  v.stage_ranks = rank.world->size() / rank.mesh.axes[*axis].size;
  for (size_t k : rank.data_axes) v.data_axes.emplace_back(k, rank.mesh.axes[k].name);
  const rt::Group& group = rank.world->axis_group(*axis);
  v.world_rank = [&group](int r) { return group.world_rank(r); };
  // Pipeline rank r of the first replica: coordinate r on pp, 0 on every other axis.
  const rt::MeshShape* shape = &rank.world->mesh();
  const size_t pp = *axis;
  v.first_replica = [shape, pp](int r) {
    for (int w = 0; w < shape->num_ranks(); ++w) {
      const std::vector<int> c = shape->coords(w);
      bool match = c[pp] == r;
      for (size_t k = 0; k < c.size(); ++k) match = match && (k == pp || c[k] == 0);
      if (match) return w;
    }
    return 0;
  };
  FunctionCache* functions = rank.functions;
  v.signature = [functions](const std::string& name, int64_t batch) { return functions->signature(name, batch); };
  return v;
}

PipelineRankView PipelineRankView::planned(const Program& program, int me) {
  PipelineRankView v;
  v.program = &program;
  v.me = me;
  v.world_rank = [](int r) { return r; };
  v.first_replica = [](int r) { return r; };
  v.signature = [&program](const std::string& name, int64_t batch) -> Expected<Signature> {
    MLC_TRY(const Function* f, program.ir(name, batch));
    return Signature::of(*f);
  };
  return v;
}

Expected<StepSchedule> build_pipeline_step_schedule(const Rank& rank, int64_t batch) {
  MLC_TRY(PipelineRankView view, PipelineRankView::of(rank));
  return build_pipeline_step_schedule(view, batch);
}

Expected<StepSchedule> build_pipeline_step_schedule(const PipelineRankView& view, int64_t batch) {
  const Program& program = *view.program;
  MLC_TRY(PipelineSchedule schedule, program.pipeline_schedule());
  const int m = schedule.microbatches, stages = schedule.stages();
  // Each replica of the pipeline (the data axes) takes its share of the batch.
  const int64_t local = batch / view.data_ranks;
  if (batch % view.data_ranks != 0 || local % m != 0)
    return make_error(program.path() + ": error: parallel.pipeline.microbatches: the batch of " + std::to_string(batch) +
                      (view.data_ranks > 1 ? " (" + std::to_string(local) + " on each of " +
                                                 std::to_string(view.data_ranks) + " data ranks)"
                                           : std::string()) +
                      " is not a multiple of " + std::to_string(m) + " micro-batches");
  // Each call computes a micro-batch of every data rank's rows (the stages'
  // functions are sharded over the data axes, passes/pipeline_stage_sharding.h).
  const int64_t micro = batch / m;
  const int me = view.me;
  const auto& world_rank = view.world_rank;

  std::map<int, StageIo> io;  // by stage, for this rank's stages and their neighbours
  auto stage_io = [&](int s) -> Expected<const StageIo*> {
    if (auto it = io.find(s); it != io.end()) return &it->second;
    StageIo x;
    MLC_TRY(Signature grad, view.signature(stage_fn(s, "loss_grad"), micro));
    for (const Signature::Arg& a : grad.args) {
      if (a.kind == ArgKind::param) ++x.params;
      for (size_t k = x.received.size();; ++k) {
        if (a.name != pipeline_received_name(k)) break;
        x.received.push_back(a.type);
        if (PipelineStageProgram::has_gradient(a.type)) x.received_grads.push_back(k);
        break;
      }
    }
    if (s + 1 < stages) {
      MLC_TRY(Signature fwd, view.signature(stage_fn(s, "forward"), micro));
      for (const Signature::Result& r : fwd.results) x.sent.push_back(r.type);
    }
    return &io.emplace(s, std::move(x)).first->second;
  };

  StepSchedule out;
  out.micro_batches = m;
  // Every rank of the last stage has the loss (replicated over the other axes).
  out.loss_replicas = static_cast<int>(view.stage_ranks);
  // Each micro-batch's gradient counts 1/m; @apply_update sums the data ranks' parts.
  out.buffers.push_back({"grad_scale", 1.0 / static_cast<double>(m), false});
  std::map<std::string, bool> made;  // buffers added
  auto add_buffer = [&](const std::string& name, const TensorType& type, bool each_step) {
    if (made.emplace(name, true).second) out.buffers.push_back({name, 0, each_step, type});
  };
  // "pipeline: stage 0's activation 1 of micro-batch 2 (F0.2.1)", "... input gradient ... (B1.2.1)".
  auto tag = [](char kind, int s, int j, size_t k) {
    return "pipeline: stage " + std::to_string(s) + "'s " + (kind == 'F' ? "activation " : "input gradient ") +
           std::to_string(k) + " of micro-batch " + std::to_string(j) + " (" + std::string(1, kind) +
           std::to_string(s) + "." + std::to_string(j) + "." + std::to_string(k) + ")";
  };
  // Result `result` of call `from`, sent to pipeline rank `to`.
  auto send = [&](size_t from, size_t result, int to, std::string name) {
    StepSchedule::Call c{"", 0, 0, {{"", from, result}}, std::nullopt};
    c.kind = StepSchedule::Kind::send;
    c.peer = world_rank(to);
    c.tag = std::move(name);
    out.calls.push_back(std::move(c));
  };
  // Into buffer `buffer` (of `type`), from pipeline rank `from`.
  auto recv = [&](const std::string& buffer, const TensorType& type, int from, std::string name) {
    add_buffer(buffer, type, false);
    StepSchedule::Call c{"", 0, 0, {}, std::nullopt};
    c.kind = StepSchedule::Kind::recv;
    c.peer = world_rank(from);
    c.buffer = buffer;
    c.tag = std::move(name);
    out.calls.push_back(std::move(c));
  };
  // (stage, micro-batch) -> its F call; its B or I call and where that call's
  // gradients of received activations start, less one (its {param} gradients).
  std::map<std::pair<int, int>, size_t> forward_call;
  std::map<std::pair<int, int>, std::pair<size_t, size_t>> grad_call;
  // Micro-batch j's received activations and gradients of the sent ones, as a call of stage s binds them.
  auto bind_stage_buffers = [&](StepSchedule::Call& c, const StageIo& x, int s, int j) {
    for (size_t k = 0; k < x.received.size(); ++k) {
      add_buffer(mb_buffer(s, j, pipeline_received_name(k)), x.received[k], false);
      c.buffer_args.emplace_back(pipeline_received_name(k), mb_buffer(s, j, pipeline_received_name(k)));
    }
    for (size_t k = 0; k < x.sent.size(); ++k)
      if (PipelineStageProgram::has_gradient(x.sent[k])) {
        add_buffer(mb_buffer(s, j, pipeline_seed_name(k)), x.sent[k], false);
        c.buffer_args.emplace_back(pipeline_seed_name(k), mb_buffer(s, j, pipeline_seed_name(k)));
      }
  };
  // Stage s's @accumulate_grads of the {param} gradients of call `at`
  // (results 1, 2, ...), into the sums that @apply_update reads.
  auto accumulate = [&](int s, int j, size_t at) -> Status {
    MLC_TRY(Signature grad, view.signature(stage_fn(s, "loss_grad"), micro));
    StepSchedule::Call acc{stage_fn(s, "accumulate_grads"), micro, j, {}, std::nullopt};
    size_t result = 1;
    for (const Signature::Arg& p : grad.args)
      if (p.kind == ArgKind::param) {
        // The gradient's type (with ZeRO 3 the parameter is sharded where its gradient is partial).
        add_buffer(p.name + ".grad", grad.results[result].type, true);
        acc.from_results.push_back({p.name + ".micro_grad", at, result++});
      }
    out.calls.push_back(std::move(acc));
    return {};
  };  // (stage, micro-batch) -> call index
  std::vector<int> my_stages;
  for (const PipelineAction& a : schedule.actions[static_cast<size_t>(me)]) {
    const int s = a.stage, j = a.microbatch;
    const bool last = s + 1 == stages;
    using K = PipelineActionKind;
    switch (a.kind) {
      case K::F: {
        if (std::find(my_stages.begin(), my_stages.end(), s) == my_stages.end()) my_stages.push_back(s);
        if (last) break;  // the last stage's @loss_grad runs its forward
        MLC_TRY(const StageIo* x, stage_io(s));
        StepSchedule::Call c{stage_fn(s, "forward"), micro, j, {}, std::nullopt};
        bind_stage_buffers(c, *x, s, j);
        forward_call[{s, j}] = out.calls.size();
        out.calls.push_back(std::move(c));
        break;
      }
      case K::SEND_F: {
        MLC_TRY(const StageIo* x, stage_io(s));
        for (size_t k = 0; k < x->sent.size(); ++k)
          send(forward_call.at({s, j}), k, schedule.rank_of_stage(s + 1), tag('F', s, j, k));
        break;
      }
      case K::RECV_F: {
        MLC_TRY(const StageIo* x, stage_io(s + 1));
        for (size_t k = 0; k < x->received.size(); ++k)
          recv(mb_buffer(s + 1, j, pipeline_received_name(k)), x->received[k], schedule.rank_of_stage(s),
               tag('F', s, j, k));
        break;
      }
      case K::B:
      case K::I: {
        // B: the whole backward; I: its input-gradient half (zb1p), whose W comes later.
        MLC_TRY(const StageIo* x, stage_io(s));
        const bool whole = a.kind == K::B;
        StepSchedule::Call c{stage_fn(s, whole ? "loss_grad" : "loss_grad_input"), micro, j, {},
                             last ? std::optional<size_t>(0) : std::nullopt};
        bind_stage_buffers(c, *x, s, j);
        grad_call[{s, j}] = {out.calls.size(), whole ? x->params : 0};
        out.calls.push_back(std::move(c));
        if (whole) MLC_CHECK_OK(accumulate(s, j, out.calls.size() - 1));
        break;
      }
      case K::W: {
        MLC_TRY(const StageIo* x, stage_io(s));
        StepSchedule::Call c{stage_fn(s, "loss_grad_weight"), micro, j, {}, std::nullopt};
        bind_stage_buffers(c, *x, s, j);
        out.calls.push_back(std::move(c));
        MLC_CHECK_OK(accumulate(s, j, out.calls.size() - 1));
        break;
      }
      case K::SEND_B: {
        MLC_TRY(const StageIo* x, stage_io(s));
        for (size_t g = 0; g < x->received_grads.size(); ++g)
          send(grad_call.at({s, j}).first, 1 + grad_call.at({s, j}).second + g, schedule.rank_of_stage(s - 1),
               tag('B', s, j, x->received_grads[g]));
        break;
      }
      case K::RECV_B: {
        MLC_TRY(const StageIo* x, stage_io(s - 1));
        for (size_t k = 0; k < x->sent.size(); ++k)
          if (PipelineStageProgram::has_gradient(x->sent[k]))
            recv(mb_buffer(s - 1, j, pipeline_seed_name(k)), x->sent[k], schedule.rank_of_stage(s), tag('B', s, j, k));
        break;
      }
    }
  }
  // What couples the stages, in the same order on every rank: the gradient
  // sums of shared parameters (tied weights) over the pipeline ranks (each
  // rank not holding one adds zeros), then the model's squared gradient
  // norms for global-norm clipping (passes/optimizer.h SplitUpdate). The
  // data ranks' parts of the sums are added by the stages' @apply_update.
  // A sum's type is @apply_update's <param>.grad's (with ZeRO 3 the
  // parameter is sharded where its gradient sum is partial).
  auto all_reduce = [&](const std::string& buffer, size_t over, std::string name) {
    StepSchedule::Call c{"", 0, 0, {}, std::nullopt};
    c.kind = StepSchedule::Kind::all_reduce;
    c.buffer = buffer;
    c.axis = static_cast<int>(over);
    c.tag = std::move(name);
    out.calls.push_back(std::move(c));
  };
  std::map<std::string, std::pair<TensorType, int>> params;  // name -> its gradient sum's type, stages holding it
  std::optional<TensorType> norms;
  for (int s = 0; s < stages; ++s) {
    MLC_TRY(Signature update, view.signature(stage_fn(s, "apply_update"), micro));
    for (const Signature::Arg& a : update.args) {
      if (a.kind == ArgKind::param)
        for (const Signature::Arg& g : update.args)
          if (g.name == a.name + ".grad") ++params.emplace(a.name, std::pair{g.type, 0}).first->second.second;
      if (a.name == kGradNormsArg) norms = a.type;
    }
  }
  for (const auto& [name, held] : params) {
    if (held.second < 2) continue;
    add_buffer(name + ".grad", held.first, true);
    all_reduce(name + ".grad", view.axis, "pipeline: the gradient of shared " + name + ", summed over its stages");
  }
  if (norms) {
    add_buffer(std::string(kGradNormsArg), *norms, true);
    for (int s : my_stages) out.calls.push_back({stage_fn(s, "grad_norms"), micro, 0, {}, std::nullopt});
    all_reduce(std::string(kGradNormsArg), view.axis, "pipeline: the squared gradient norms of every stage");
  }
  for (int s : my_stages) out.calls.push_back({stage_fn(s, "apply_update"), micro, 0, {}, std::nullopt});
  return out;
}

Expected<PipelineHolders> pipeline_tensor_holders(const Rank& rank, int64_t batch) {
  MLC_TRY(PipelineRankView view, PipelineRankView::of(rank));
  return pipeline_tensor_holders(view, batch);
}

Expected<PipelineHolders> pipeline_tensor_holders(const PipelineRankView& view, int64_t batch) {
  MLC_TRY(PipelineSchedule schedule, view.program->pipeline_schedule());
  const int64_t micro = batch / schedule.microbatches;
  PipelineHolders holders;
  for (int s = 0; s < schedule.stages(); ++s) {
    const int holder = view.first_replica(schedule.rank_of_stage(s));
    for (const char* fn : {"loss_grad", "apply_update"}) {
      MLC_TRY(Signature sig, view.signature(stage_fn(s, fn), micro));
      for (const Signature::Arg& a : sig.args) {
        if (a.kind != ArgKind::param && a.kind != ArgKind::frozen && a.kind != ArgKind::state) continue;
        if (a.name == kGradNormsArg) continue;
        std::vector<int>& h = holders[a.name];
        if (std::find(h.begin(), h.end(), holder) == h.end()) h.push_back(holder);
      }
    }
  }
  for (auto& [name, h] : holders) std::sort(h.begin(), h.end());
  return holders;
}

bool holds(const Rank& rank, const PipelineHolders& holders, const std::string& name) {
  const std::optional<size_t> axis = pipeline_axis(rank);
  auto it = holders.find(name);
  if (!axis || it == holders.end()) return false;
  for (int h : it->second)
    if (rank.world->mesh().coords(h)[*axis] == rank.coords[*axis]) return true;
  return false;
}

bool writes_pipeline_tensor(const Rank& rank, const PipelineHolders& holders, const std::string& name,
                            const Placements& placements) {
  const std::optional<size_t> axis = pipeline_axis(rank);
  auto it = holders.find(name);
  if (!axis || it == holders.end() || it->second.empty()) return false;
  if (rank.world->mesh().coords(it->second.front())[*axis] != rank.coords[*axis]) return false;
  for (size_t a = 0; a < rank.coords.size(); ++a)
    if (a != *axis && (a >= placements.size() || !placements[a].is_sharded()) && rank.coords[a] != 0) return false;
  return true;
}

Expected<std::map<std::string, Placements>> pipeline_tensor_placements(const Rank& rank, int64_t batch) {
  MLC_TRY(PipelineRankView view, PipelineRankView::of(rank));
  MLC_TRY(PipelineSchedule schedule, view.program->pipeline_schedule());
  std::map<std::string, Placements> out;
  for (int s = 0; s < schedule.stages(); ++s) {
    for (const char* fn : {"loss_grad", "apply_update"}) {
      MLC_TRY(Signature sig, view.signature(stage_fn(s, fn), batch / schedule.microbatches));
      for (const Signature::Arg& a : sig.args)
        if ((a.kind == ArgKind::param || a.kind == ArgKind::frozen || a.kind == ArgKind::state) &&
            a.name != kGradNormsArg)
          out[a.name] = a.placements.empty() ? replicated(rank.mesh.axes.size()) : a.placements;
    }
  }
  return out;
}

Expected<std::vector<rt::NamedTensor>> gather_pipeline_tensors(const Rank& rank, const PipelineHolders& holders,
                                                               const std::vector<rt::NamedTensor>& global,
                                                               const std::vector<rt::NamedTensor>& mine,
                                                               const std::vector<Placements>& placements) {
  std::vector<rt::NamedTensor> whole;
  const int me = rank.index();
  for (const rt::NamedTensor& g : global) {
    auto it = holders.find(g.name);
    if (it == holders.end() || it->second.empty())
      return make_error("mlc internal error: pipeline: no stage holds '" + g.name + "'");
    const int from = it->second.front();
    std::optional<rt::Tensor> own;
    for (size_t i = 0; i < mine.size(); ++i) {
      if (mine[i].name != g.name) continue;
      // The whole tensor on every rank of the stage: partial sums added, shards gathered.
      rt::Tensor t = mine[i].tensor;
      const Placements& p = placements[i];
      for (size_t a = 0; a < p.size(); ++a)
        if (p[a].is_partial())
          MLC_CHECK_OK(rank.world->axis_group(a).all_reduce(t.bytes(), t.num_elements(), t.dtype(), rt::ReduceOp::sum,
                                                            "pipeline: " + g.name + " summed over its partial sums"));
      Placements sharded = p;
      for (Placement& x : sharded)
        if (x.is_partial()) x = Placement::R();
      MLC_TRY(own, rank.gather(t, sharded, g.name));
    }
    if (me == from && !own) return make_error("mlc internal error: pipeline: this rank holds no '" + g.name + "'");
    const std::string tag = "pipeline: " + g.name + " to rank 0";
    if (me == 0) {
      if (from == 0) {
        whole.push_back({g.name, std::move(*own)});
        continue;
      }
      rt::Tensor t(g.tensor.type());
      MLC_CHECK_OK(rank.world->all().recv(t.bytes(), t.num_bytes(), from, tag));
      whole.push_back({g.name, std::move(t)});
    } else if (me == from) {
      MLC_CHECK_OK(rank.world->all().send(own->bytes(), own->num_bytes(), 0, tag));
    }
  }
  return whole;
}

}  // namespace mlc
