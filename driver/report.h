// `mlc report METRICS.jsonl -o report.html`: one self-contained HTML page of
// a training run's metrics (driver/metrics_log.h): no scripts, no network;
// the charts are inline SVG (driver/svg_chart.h).
//
// The page: a title with the model's name and a table of the run's facts
// (its "run" record: backend, mesh, batch, optimizer, steps), then
//  - "Training loss" (svg#loss): the loss of every step (polyline
//    .train-loss), the epochs' mean loss at each epoch's last step
//    (.epoch-loss) and the evaluations' loss (.eval-loss) over steps;
//  - "Evaluation accuracy" (svg#accuracy, classifiers): .eval-accuracy;
//  - "Gradient flow" (svg#grad-flow): mean |g| per parameter (the x axis,
//    categories in the model's order), one line per recorded step
//    (.grad-step-N; at most 12, evenly spaced, the last always), log scale;
//  - "Gradients at step N" (svg#grad-bars): PyTorch's plot_grad_flow bars of
//    the last recorded step, max |g| (.grad-max) over mean |g| (.grad-mean),
//    and the L2 norm (.grad-norm), log scale;
//  - "Gradient norm over steps" (svg#grad-norms): each parameter's L2 norm
//    per recorded step, log scale;
//  - a table of the epochs and evaluations.
// A section without records says which setting records them.
#pragma once

#include <string>

#include "driver/metrics_log.h"

namespace mlc {

// `source` names the metrics file in the page.
std::string render_report(const MetricsLog& log, const std::string& source);

}  // namespace mlc
