#pragma once
// The graph as it is shown, written as a picture: the whole scene (clusters, nodes, the heat
// colouring) and, when the heat overlay is on, its legend in the top-left corner. SVG through
// QSvgGenerator, PNG through a QImage; both paint on the UI thread, from items already built.

#include <QString>

namespace fxscope::views {

class GraphPanel;

// The PNG's longest side and pixel count at most: a 5,000-node graph at full scale would take
// gigabytes, so a big graph is scaled down to fit both.
inline constexpr int kMaxPngSide = 16000;
inline constexpr double kMaxPngPixels = 64e6;

// Writes PANEL's shown graph to PATH; an empty result means done, else why not.
QString export_view_svg(const GraphPanel& panel, const QString& path);
QString export_view_png(const GraphPanel& panel, const QString& path);

}  // namespace fxscope::views
