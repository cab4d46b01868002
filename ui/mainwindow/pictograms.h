#pragma once
// The toolbars' pictograms, drawn in code (no image files to ship), 24 × 24: the palette
// ("select", the shape names, "marker", "ground"), the joints and forces by their type names,
// "motion" and "contact", the couplers by their type names ("gear", "rackPinion", "screw",
// "linear"). A dark outline on a light fill reads on light and dark themes.

#include <QIcon>
#include <QString>

namespace ui {

QIcon pictogram(const QString& what);

}  // namespace ui
