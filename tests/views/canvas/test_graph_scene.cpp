// The graph scene as the window tears it down: a scene being destroyed drops its selected items
// one by one, and no one may hear of it (the canvas and the graph panel are half destroyed then).
#include <QSignalSpy>

#include "canvas/graph_canvas.h"
#include "canvas/graph_scene.h"
#include "panels/graph_panel.h"
#include "views_test_support.h"
#include "window/main_window.h"
#include "window_test_support.h"

namespace fxscope::test {

TEST_CASE("A window closed with a kernel's nodes selected reports no selection change",
          "[views][canvas]") {
  qt_app();
  int selection_changes = 0;
  int nodes_selected = 0;
  {
    views::MainWindow window;
    window.show();
    open_first_unit(window, "residual_mlp");
    views::GraphPanel& panel = window.graph_panel();
    // As a click on a Kernels row selects its kernel's nodes.
    panel.highlight_node_ids({0, 1, 2}, QStringLiteral("three nodes"));
    REQUIRE(panel.scene().selectedItems().size() == 3);
    QObject::connect(&panel.scene(), &QGraphicsScene::selectionChanged,
                     [&selection_changes] { ++selection_changes; });
    QObject::connect(&panel.canvas(), &views::GraphCanvas::node_selected,
                     [&nodes_selected] { ++nodes_selected; });
  }
  // Each selected node removed while the scene was destroyed announced the others as the
  // selection, which reached the panel's inspector after the panel's members were gone.
  CHECK(selection_changes == 0);
  CHECK(nodes_selected == 0);
}

}  // namespace fxscope::test
