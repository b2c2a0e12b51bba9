// The fitted view of a big graph draws one overview picture instead of every item; near views
// and small graphs draw their items.
#include <QSignalSpy>

#include "canvas/graph_canvas.h"
#include "canvas/graph_scene.h"
#include "panels/graph_panel.h"
#include "views_test_support.h"
#include "window/main_window.h"
#include "window_test_support.h"

namespace fxscope::test {
namespace {}  // namespace

TEST_CASE("The fitted LLaMA graph is drawn from the overview picture", "[views][overview]") {
  qt_app();
  views::MainWindow window;
  window.show();
  open_first_unit(window, "llama_48layer");
  views::GraphCanvas& canvas = window.graph_panel().canvas();
  REQUIRE(window.graph_panel().shown()->graph.size() > 4000);
  // It opens at reading zoom: items, with their text.
  canvas.viewport()->repaint();
  CHECK_FALSE(canvas.drew_overview());
  canvas.fit_to_view();
  canvas.viewport()->repaint();
  CHECK(canvas.drew_overview());
  // A selection is drawn over the picture, and the heat overlay makes a new picture.
  REQUIRE(window.graph_panel().search(QStringLiteral("mm")));
  canvas.fit_to_view();
  canvas.viewport()->repaint();
  CHECK(canvas.drew_overview());
  window.graph_panel().set_heat_shown(true);
  canvas.viewport()->repaint();
  CHECK(canvas.drew_overview());
}

TEST_CASE("A small graph always draws its items", "[views][overview]") {
  qt_app();
  views::MainWindow window;
  window.show();
  open_first_unit(window, "residual_mlp");
  views::GraphCanvas& canvas = window.graph_panel().canvas();
  canvas.fit_to_view();
  canvas.viewport()->repaint();
  CHECK_FALSE(canvas.drew_overview());
}

}  // namespace fxscope::test
