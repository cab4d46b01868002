#pragma once
// What the 3D view's manipulator offers (ui/viewport/gizmo.h), free of OpenSceneGraph so the
// view's header can name it.

namespace ui {

enum class GizmoMode { Translate, Rotate };

struct GizmoHandle {
    GizmoMode mode = GizmoMode::Translate;
    int axis = 0;  // 0 x, 1 y, 2 z of the gizmo frame
};

}  // namespace ui
