// "Run on GPU" in the window, offscreen: the command line the settings make, the child process
// (progress, exit codes, bad output, a missing executable, cancel), the real fxscope-cli of a
// build without CUDA refusing, and a saved H200 run overlaid on the graph, the Kernels tab and A/B.
#include <QDockWidget>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "canvas/graph_canvas.h"
#include "canvas/graph_scene.h"
#include "canvas/heat_legend.h"
#include "context/view_context.h"
#include "gpu_run/gpu_run_controller.h"
#include "gpu_run/gpu_run_settings.h"
#include "gpu_run/gpu_run_settings_dialog.h"
#include "gpu_run/gpu_runner.h"
#include "models/kernels_model.h"
#include "models/mode_comparison_model.h"
#include "panels/graph_panel.h"
#include "panels/kernels_panel.h"
#include "panels/mode_comparison_panel.h"
#include "panels/node_details.h"
#include "views_test_support.h"
#include "window/main_window.h"
#include "window_test_support.h"

namespace fxscope::test {
namespace {

using views::GpuRunController;
using views::GpuRunner;
using views::GpuRunSettings;
using views::GraphPanel;
using views::MainWindow;

// Runs the shell line SCRIPT as the "fxscope-cli" and returns the failure message, or "" when
// it finished with a run.
std::string run_script(const QString& script, bool cancel = false) {
  GpuRunner runner;
  QSignalSpy finished(&runner, &GpuRunner::finished);
  QSignalSpy failed(&runner, &GpuRunner::failed);
  QSignalSpy progress(&runner, &GpuRunner::progress);
  REQUIRE(runner.start({QStringLiteral("/bin/sh"), QStringLiteral("-c"), script}));
  CHECK(runner.running());
  if (cancel) runner.cancel();
  REQUIRE((finished.count() + failed.count() > 0 ||
           QTest::qWaitFor([&] { return finished.count() + failed.count() > 0; }, kTimeoutMs)));
  CHECK_FALSE(runner.running());
  CHECK(progress.count() >= 1);
  return failed.isEmpty() ? std::string() : failed.front().front().toString().toStdString();
}

bool wait_ab(views::ModeComparisonPanel& ab) {
  return QTest::qWaitFor([&] { return !ab.busy(); }, kTimeoutMs);
}

}  // namespace

TEST_CASE("GPU run settings make the command line and survive QSettings", "[views][gpu_run]") {
  qt_app();
  GpuRunSettings s;
  s.executable = QStringLiteral("/opt/fx/bin/fxscope-cli");
  s.command_prefix = QStringLiteral("ssh -p 2222 \"gpu box\"");
  s.python = QStringLiteral("/opt/torch/bin/python3");
  const QStringList expected = {"ssh",
                                "-p",
                                "2222",
                                "gpu box",
                                "/opt/fx/bin/fxscope-cli",
                                "run",
                                "/logs/x.log",
                                "--unit",
                                "1/0",
                                "--mode",
                                "all",
                                "--json",
                                "--backend",
                                "pytorch",
                                "--python",
                                "/opt/torch/bin/python3"};
  CHECK(s.command(QStringLiteral("/logs/x.log"), QStringLiteral("1/0")) == expected);
  // The dialog edits the same fields and gives them back unchanged.
  const views::GpuRunSettingsDialog dialog(s);
  CHECK(dialog.settings().command(QStringLiteral("/logs/x.log"), QStringLiteral("1/0")) ==
        expected);
  // No executable set: the one beside the app, or the name alone.
  CHECK(GpuRunSettings{}.resolved_executable().endsWith(QStringLiteral("fxscope-cli")));

  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const QString file = dir.filePath(QStringLiteral("gpu_run_settings_roundtrip.ini"));
  {
    QSettings stored(file, QSettings::IniFormat);
    s.save(stored);
  }
  const QSettings stored(file, QSettings::IniFormat);
  const GpuRunSettings back = GpuRunSettings::load(stored);
  CHECK(back.executable == s.executable);
  CHECK(back.command_prefix == s.command_prefix);
  CHECK(back.backend == s.backend);
  CHECK(back.python == s.python);
  CHECK_FALSE(back.allow_tf32);

  // TF32 for PyTorch: passed to the pytorch backend only (the engine refuses it), and kept.
  s.allow_tf32 = true;
  CHECK(s.command(QStringLiteral("/logs/x.log"), QStringLiteral("1/0")).last() ==
        QStringLiteral("--allow-tf32"));
  CHECK(views::GpuRunSettingsDialog(s).settings().allow_tf32);
  {
    QSettings again(file, QSettings::IniFormat);
    s.save(again);
  }
  CHECK(GpuRunSettings::load(QSettings(file, QSettings::IniFormat)).allow_tf32);
  s.backend = QStringLiteral("engine");
  CHECK_FALSE(s.command(QStringLiteral("/logs/x.log"), QStringLiteral("1/0"))
                  .contains(QStringLiteral("--allow-tf32")));
}

TEST_CASE("The GPU run child: JSON on success, one-line failures otherwise", "[views][gpu_run]") {
  qt_app();
  const QString run_file = QString::fromStdString(data("runs/residual_mlp_pytorch_h200.json"));
  CHECK(run_script(QStringLiteral("echo 'mode eager ...' >&2; cat '%1'").arg(run_file)).empty());
  CHECK(run_script(QStringLiteral("echo 'fxscope-cli: no CUDA device' >&2; exit 1")) ==
        "fxscope-cli run failed (exit status 1): fxscope-cli: no CUDA device");
  CHECK(run_script(QStringLiteral("echo hello")) ==
        "the output of fxscope-cli run: not JSON (expected `fxscope-cli run --json`)");
  CHECK(run_script(QStringLiteral("echo '{\"modes\": 3}'")) ==
        "the output of fxscope-cli run: \"modes\" should be an array");
  CHECK(run_script(QStringLiteral("kill -SEGV $$")).starts_with("fxscope-cli run crashed"));
  CHECK(run_script(QStringLiteral("sleep 30"), true) == "GPU run cancelled");

  GpuRunner runner;
  QSignalSpy failed(&runner, &GpuRunner::failed);
  runner.start({QStringLiteral("/nonexistent/fxscope-cli"), QStringLiteral("run")});
  REQUIRE((!failed.isEmpty() || failed.wait(kTimeoutMs)));
  CHECK(failed.front().front().toString().startsWith(
      QStringLiteral("could not start /nonexistent/fxscope-cli")));
  CHECK_FALSE(runner.running());
}

TEST_CASE("Run on GPU with this build's fxscope-cli reports why it cannot run",
          "[views][gpu_run]") {
  qt_app();
  MainWindow window;
  window.show();
  GpuRunController& runs = window.gpu_runs();
  QSignalSpy failed(&runs, &GpuRunController::failed);
  // Nothing shown yet: a message, no child.
  CHECK_FALSE(runs.run_shown_unit());
  CHECK(failed.count() == 1);

  open_first_unit(window, "residual_mlp");
  GpuRunSettings settings;
  settings.executable = QStringLiteral(FXSCOPE_CLI);
  // On a CUDA build with a GPU the run would really start: a Python that is not there makes it
  // refuse in one line on every machine.
  settings.python = QStringLiteral("/nonexistent/python3");
  runs.set_settings(settings);
  REQUIRE(runs.run_shown_unit());
  CHECK(runs.running());
  REQUIRE(failed.wait(kTimeoutMs));
  const std::string message = failed.back().front().toString().toStdString();
#if FXSCOPE_CLI_HAS_CUDA
  // On a CUDA build the CLI gets further and names what is missing (a GPU, the Python ...).
  CHECK(message.starts_with("fxscope-cli run failed (exit status 1)"));
#else
  CHECK(message ==
        "fxscope-cli run failed (exit status 1): fxscope-cli: this fxscope-cli was built without "
        "CUDA (FXSCOPE_WITH_CUDA=OFF): no GPU backend");
#endif
  CHECK_FALSE(runs.running());
  // The window still shows its graph and takes the next request.
  REQUIRE(window.graph_panel().shown());
  CHECK(window.graph_panel().shown()->problem.empty());
  CHECK(window.graph_panel().search(QStringLiteral("erf")));
}

TEST_CASE("A saved H200 run colours residual_mlp's groups and fills Kernels and A/B",
          "[views][gpu_run]") {
  qt_app();
  MainWindow window;
  window.show();
  open_first_unit(window, "residual_mlp");
  GraphPanel& panel = window.graph_panel();
  CHECK_FALSE(panel.heat_shown());
  CHECK_FALSE(panel.canvas().legend().isVisible());

  load_run(window, "runs/residual_mlp_pytorch_h200.json");
  REQUIRE(window.context().run());
  CHECK(panel.heat_shown());
  const views::HeatOverlay& heat = panel.heat();
  REQUIRE(heat.mode != nullptr);
  CHECK(heat.mode->mode == "default");
  CHECK(heat.mismatch.empty());
  // Every fxscope group of the default plan has nodes the run's kernels name.
  CHECK(heat.measured_groups == heat.groups.size());
  CHECK(heat.max_us > 30);  // the first GEMM, 33.3 us on the H200
  CHECK(panel.canvas().legend().isVisible());
  CHECK(panel.canvas().legend().source().startsWith(QStringLiteral("measured on NVIDIA H200")));

  const views::KernelsModel& kernels = window.kernels_panel().model();
  REQUIRE(kernels.rowCount() >= int(heat.groups.size()));
  int measured = 0;
  for (int r = 0; r < kernels.rowCount(); ++r) measured += kernels.row_at(r)->measured_us ? 1 : 0;
  CHECK(measured == kernels.rowCount());
  // Clicking the fused GELU kernel's row selects its nodes on the canvas.
  QTableView& table = window.kernels_panel().table();
  int gelu = -1;
  for (int r = 0; r < table.model()->rowCount(); ++r) {
    const QString name = table.model()->index(r, views::KernelsModel::kKernel).data().toString();
    if (name.contains(QStringLiteral("triton_poi_fused_add_addmm_erf_mul_0"))) gelu = r;
  }
  REQUIRE(gelu >= 0);
  const QModelIndex cell = table.model()->index(gelu, 0);
  emit table.clicked(cell);
  CHECK(panel.scene().selectedItems().size() >= 7);

  // Eager was measured too: the overlay follows the mode.
  QSignalSpy shown(&panel, &GraphPanel::graph_shown);
  panel.context().set_mode(fusion::Mode::eager);
  REQUIRE(shown.wait(kTimeoutMs));
  REQUIRE(panel.heat().mode != nullptr);
  CHECK(panel.heat().mode->mode == "eager");
  CHECK(panel.heat().measured_groups > 0);

  // A/B from the two measured modes.
  views::ModeComparisonPanel& ab = window.mode_comparison();
  ab.set_modes(int(fusion::Mode::eager), int(fusion::Mode::default_mode));
  REQUIRE(wait_ab(ab));
  CHECK(ab.summary().contains(QStringLiteral("eager: 198.7 µs, 9 launches (measured)")));
  CHECK(ab.summary().contains(QStringLiteral("default: 144.8 µs, 4 launches (measured)")));
  CHECK(ab.model().rowCount() == 5);

  // Another log's unit 0/0 is other code: its run is not carried over.
  QSignalSpy reloaded(&window, &MainWindow::log_loaded);
  window.open_path(QString::fromStdString(sample("pointwise_chain")));
  REQUIRE(reloaded.wait(kTimeoutMs));
  CHECK_FALSE(window.context().run());
}

TEST_CASE("Without a matching run the overlay and A/B show predictions and say so",
          "[views][gpu_run]") {
  qt_app();
  MainWindow window;
  window.show();
  open_first_unit(window, "residual_mlp");
  GraphPanel& panel = window.graph_panel();
  panel.set_heat_shown(true);
  CHECK(panel.heat().mode == nullptr);
  CHECK(panel.heat().measured_groups == 0);
  CHECK(panel.heat().max_us > 0);
  CHECK(panel.canvas().legend().source().startsWith(QStringLiteral("predicted by the cost model")));

  views::ModeComparisonPanel& ab = window.mode_comparison();
  ab.set_modes(int(fusion::Mode::eager), int(fusion::Mode::reduce_overhead));
  REQUIRE(wait_ab(ab));
  CHECK(ab.summary().contains(QStringLiteral("(predicted)")));
  // B's three planned kernels, then what only eager runs (its own kernels the fused plan has
  // no node of).
  CHECK(ab.model().comparison().b.run.kernels.size() == 3);
  CHECK(ab.model().rowCount() >= 3);
  CHECK(ab.model()
            .headerData(views::ModeComparisonModel::kA, Qt::Horizontal, Qt::DisplayRole)
            .toString() == QStringLiteral("eager predicted µs"));

  // A run of another sample's unit 0/0 on this unit: same id, so it applies by id; a run of
  // another unit id does not.
  report::RunResult other;
  other.unit = "7/0";
  other.device = "NVIDIA H200";
  report::RunMode& other_mode = other.modes.emplace_back();
  other_mode.mode = "default";
  other_mode.total_us = 10;
  other_mode.kernel_us = 10;
  other_mode.attributed_us = 10;
  other_mode.launches = 1;
  other_mode.repeats = 20;
  window.context().set_run(std::make_shared<const report::RunResult>(other));
  CHECK(panel.heat().mode == nullptr);
  CHECK(panel.heat().mismatch == "the GPU run is of unit 7/0, not 0/0");
  CHECK(window.kernels_panel().caption().contains(QStringLiteral("the GPU run is of unit 7/0")));

  // A file that is not a run: a message, and the run shown before stays.
  QSignalSpy failed(&window.gpu_runs(), &GpuRunController::failed);
  window.gpu_runs().load_run_file(
      QString::fromStdString(data("runs/pointwise_chain_pytorch_h200.trace.json")));
  REQUIRE(failed.wait(kTimeoutMs));
  CHECK(failed.front().front().toString().endsWith(QStringLiteral("\"modes\" should be an array")));
  REQUIRE(window.context().run());
  CHECK(window.context().run()->unit == "7/0");
}

TEST_CASE("An engine run shows each generated kernel's bandwidth in Kernels and the inspector",
          "[views][gpu_run]") {
  qt_app();
  MainWindow window;
  window.show();
  open_first_unit(window, "pointwise_chain");
  load_run(window, "runs/pointwise_chain_engine_h200.json");
  const views::KernelsModel& kernels = window.kernels_panel().model();
  int pointwise = -1;
  for (int r = 0; r < kernels.rowCount(); ++r) {
    if (kernels.row_at(r)->group.startsWith(QStringLiteral("triton_poi_fused"))) pointwise = r;
  }
  REQUIRE(pointwise >= 0);
  const QModelIndex cell = kernels.index(pointwise, views::KernelsModel::kBandwidth);
  // About 2,000 GB/s on the H200: 56% of a copy of the same size measured in the same run, 48% of
  // its 256 MiB copy; compute-bound (its full-precision math), so not held to the target: the
  // cell shows its share of the issue rate instead (15.0 us of instructions in 16.9 us).
  CHECK(cell.data().toString().endsWith(QStringLiteral("GB/s · compute 89%")));
  const QString tip = cell.data(Qt::ToolTipRole).toString();
  CHECK(tip.contains(QStringLiteral("56% of a same-size cudaMemcpy")));
  CHECK(tip.contains(QStringLiteral("judged against the cudaMemcpy")));  // a run in the older form
  CHECK(tip.contains(QStringLiteral("48% of the run's 256 MiB copy")));
  CHECK(tip.contains(QStringLiteral("compute-bound")));
  CHECK(tip.contains(QStringLiteral("it runs at 89% of the issue rate")));
  CHECK(cell.data(views::KernelsModel::kSortRole).toDouble() == Approx(0.56).margin(0.01));
  // The inspector of one of its nodes says the same.
  const views::KernelRow* row = kernels.row_at(pointwise);
  REQUIRE_FALSE(row->canvas_nodes.empty());
  const std::string details = views::node_details(
      *window.graph_panel().shown(), row->canvas_nodes.front(), &window.graph_panel().heat());
  CHECK(details.find("48% of copy, 56% of a same-size copy (34.1 MB): compute-bound (15.0 us of "
                     "instructions, 89% of the issue rate)") != std::string::npos);
  // The split reduction's second kernel runs on the first's nodes and is drawn in its cluster:
  // the groups' measured times still add up to the run's kernel time, nothing counted twice.
  const views::HeatOverlay& heat = window.graph_panel().heat();
  REQUIRE(heat.mode != nullptr);
  double shown_us = 0;
  for (const auto& group : heat.groups) shown_us += group.measured ? group.us : 0.0;
  CHECK(shown_us == Approx(heat.mode->kernel_us).epsilon(0.01));
}

TEST_CASE("Each kernel's time lands on the cluster it was run for and not on groups recomputing it",
          "[views][gpu_run]") {
  qt_app();
  MainWindow window;
  window.show();
  open_first_unit(window, "pointwise_chain");
  load_run(window, "runs/pointwise_chain_engine_in_place_h200.json");
  const views::CanvasGraph& graph = *window.graph_panel().shown();
  const views::HeatOverlay& heat = window.graph_panel().heat();
  REQUIRE(heat.mode != nullptr);
  // Two clusters: the var_mean kernel with its split's second pass drawn in it, and the
  // normalisation kernel, which recomputes the chain the var_mean kernel reduces (its nodes are
  // the var_mean cluster's too).
  REQUIRE(graph.groups.size() == 2);
  double red_us = 0, per_us = 0, poi_us = 0;
  for (const auto& k : heat.mode->kernels) {
    if (k.group.starts_with("triton_red_")) red_us += k.us;
    if (k.group.starts_with("triton_per_")) per_us += k.us;
    if (k.group.starts_with("triton_poi_")) poi_us += k.us;
  }
  REQUIRE(red_us > 20.0);  // 21.0, 2.1 and 16.9 us in this run
  REQUIRE(per_us > 1.0);
  REQUIRE(poi_us > 15.0);
  for (std::size_t g = 0; g < graph.groups.size(); ++g) {
    INFO(graph.groups[g].name);
    REQUIRE(heat.groups[g].measured);
    if (graph.groups[g].name.starts_with("triton_red_")) {
      CHECK(graph.groups[g].kernel_names.size() == 2);
      // Split by nodes, 4.5 us of it went to the normalisation's cluster: 18.7 against 21.5.
      CHECK(heat.groups[g].us == Approx(red_us + per_us));
    } else {
      CHECK(heat.groups[g].us == Approx(poi_us));
    }
  }
}

TEST_CASE("ResNet-50's engine run in the window", "[views][gpu_run]") {
  qt_app();
  MainWindow window;
  window.show();
  open_first_unit(window, "resnet50");
  load_run(window, "runs/resnet50_engine_h200.json");
  const views::CanvasGraph& graph = *window.graph_panel().shown();
  const views::HeatOverlay& heat = window.graph_panel().heat();
  REQUIRE(heat.mode != nullptr);
  SECTION("a layout copy's time stays with its convolution's cluster, not its origins'") {
    // Layer 4's weight copy is named after the batch norms and convolution Inductor gathered, but
    // it is drawn with the convolution it copies for, and its kernel's 5.7 us are that cluster's.
    const std::string copy =
        "triton_poi_fused_add_convolution_mul_reciprocal_relu_sqrt_sub_unsqueeze_56";
    std::size_t host = graph.groups.size();
    for (std::size_t g = 0; g < graph.groups.size(); ++g) {
      CHECK(graph.groups[g].name != copy);  // no cluster of its own
      const auto& copies = graph.groups[g].layout_copies;
      if (std::find(copies.begin(), copies.end(), copy) != copies.end()) host = g;
    }
    REQUIRE(host < graph.groups.size());
    CHECK(graph.groups[host].name == "extern_kernels.convolution");
    CHECK(graph.groups[host].kernels == 2);
    double copy_us = 0;
    for (const auto& k : heat.mode->kernels) {
      if (k.group == copy) copy_us += k.us;
    }
    CHECK(copy_us == Approx(5.7).margin(0.1));
    CHECK(heat.groups[host].us >= copy_us);
    // Nothing counted twice: the clusters add up to the run's kernel time.
    double shown_us = 0;
    for (const auto& group : heat.groups) shown_us += group.measured ? group.us : 0.0;
    CHECK(shown_us == Approx(heat.mode->kernel_us).epsilon(0.01));
  }
  SECTION("the inspector names the median call the bandwidth verdict judged") {
    // The stem's batch norm + ReLU + max-pool, 4.0 MB in 2.62 us: at the target against a copy
    // timed in its place, which reads what the stem's batch norm wrote (from L2).
    graph::NodeId pool = 0;
    while (pool < graph.graph.size() &&
           graph.graph.node(pool).name != "_low_memory_max_pool_with_offsets") {
      ++pool;
    }
    REQUIRE(pool < graph.graph.size());
    const std::string details = views::node_details(graph, pool, &heat);
    INFO(details);
    CHECK(details.find("(4.0 MB, 2.62 us at its median call)") != std::string::npos);
    CHECK(details.find(" us at its median call): meets the 70% target (of the copy kernel in its "
                       "place)") != std::string::npos);
    // Where that copy ran, and the copy alone beside it.
    CHECK(details.find("  reference: the copy kernel took 1.92 us, timed after group 3 "
                       "triton_poi_fused_add_mul_reciprocal_relu_sqrt_sub_unsqueeze_2 (generated "
                       "kernel), reading what it wrote, on the stream (2.40 us alone)\n") !=
          std::string::npos);
  }
}

TEST_CASE("The Kernels and A/B models pass QAbstractItemModelTester", "[views][gpu_run]") {
  qt_app();
  QtWarningCapture warnings;
  views::KernelsModel kernels;
  QAbstractItemModelTester kernels_tester(&kernels,
                                          QAbstractItemModelTester::FailureReportingMode::Warning);
  std::vector<views::KernelRow> rows(3);
  rows[0].kernel = QStringLiteral("k0");
  rows[1].measured_us = 2.5;
  rows[2].predicted_us = 1.0;
  kernels.set_rows(rows);
  kernels.set_rows({});
  kernels.set_rows(rows);
  CHECK(kernels.data(kernels.index(1, views::KernelsModel::kMeasured), Qt::DisplayRole) == "2.50");
  CHECK(kernels.data(kernels.index(0, views::KernelsModel::kMeasured),
                     views::KernelsModel::kSortRole) == -1.0);

  views::ModeComparisonModel ab;
  QAbstractItemModelTester ab_tester(&ab, QAbstractItemModelTester::FailureReportingMode::Warning);
  const auto run = report::read_run_result(data("runs/pointwise_chain_pytorch_h200.json"));
  REQUIRE(run.ok());
  ab.set_comparison(report::compare_modes(report::side_of(*run->find_mode("eager")),
                                          report::side_of(*run->find_mode("default"))));
  CHECK(ab.rowCount() == 3);
  ab.clear();
  CHECK(ab.rowCount() == 0);
  CHECK(warnings.text().empty());
}

}  // namespace fxscope::test
