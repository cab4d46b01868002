#pragma once
// The 3D view: a QOpenGLWidget hosting an osgViewer::Viewer through a GraphicsWindowEmbedded.
// The viewer runs single-threaded and only inside paintGL, where Qt's context is current.
// OpenSceneGraph stays out of this header (pimpl) so widgets that embed the view build fast.

#include <memory>

#include <QOpenGLWidget>

#include <vector>

#include "ui/viewport/gizmo_handle.h"

class QLabel;

namespace engine {
struct ContactForce;
struct SceneSpec;
struct Transform;
}  // namespace engine

namespace ui {

// What lies under a point of the view, for the building tools: a marker (within a few pixels
// of its origin), a part's surface (point and outward normal), a joint glyph (or a coupler's
// pitch point: Kind::Joint with the coupler's id), the ground plane
// z = 0 seen from above or below, or else empty space, where the point is taken on the plane
// through the view's centre facing the camera. World coordinates, metres.
struct PickResult {
    enum class Kind { Nothing, Marker, Part, Joint, Ground, Space };
    Kind kind = Kind::Nothing;
    quint64 entity = 0;  // marker, part or joint id (Ground and Space: 0)
    // What a click there selects: a joint glyph, else a marker within a few pixels, else the
    // part under the pointer (0: nothing).
    quint64 selectable = 0;
    double point[3] = {0.0, 0.0, 0.0};
    double normal[3] = {0.0, 0.0, 1.0};
};

class ViewportWidget : public QOpenGLWidget {
    Q_OBJECT

public:
    enum class StandardView { Isometric, Front, Back, Left, Right, Top, Bottom };

    // Sets the process-wide OpenGL format OpenSceneGraph needs: a compatibility profile
    // (Debian's OSG uses fixed-function GL; a core profile draws nothing), 24-bit depth and
    // `samples` MSAA samples (negative: $MOTUS_GL_SAMPLES, default 0: the view anti-aliases with
    // an FXAA pass, far cheaper in software rendering). Call before QApplication.
    static void configureDefaultSurfaceFormat(int samples = -1);

    explicit ViewportWidget(QWidget* parent = nullptr);
    ~ViewportWidget() override;

    // Replaces the displayed mechanism and frames it.
    // Draws `spec` (at its initial poses); `fit` frames it (a new document), else the camera
    // stays where the user put it (an edit of the same document).
    void showScene(const engine::SceneSpec& spec, bool fit = true);
    void clearScene();

    // Moves the parts to the given poses (X_WP per part of the shown spec), e.g. a frame of a
    // run; markers and joint glyphs ride along with their parts.
    void setPartPoses(const std::vector<engine::Transform>& partPoses);
    // The pose part `part` is drawn at (for tests and picking).
    engine::Transform partPose(std::size_t part) const;
    // The previous run's parts (after Re-run From Here) at these poses, translucent; an empty
    // list hides them. View ▸ Previous Run turns the ghost off and on.
    void setGhostPoses(const std::vector<engine::Transform>& partPoses);
    void setGhostEnabled(bool on);
    bool ghostVisible() const;  // posed and enabled

    // Picking: the entity (part, marker or joint id) drawn under a widget position, 0 if none.
    quint64 entityAt(const QPointF& position) const;
    // Everything the building tools need to know about a widget position (see PickResult).
    PickResult pick(const QPointF& position) const;
    // Where a world point appears in the widget (logical pixels).
    QPointF project(double x, double y, double z) const;
    // Highlights these entities (parts glow).
    void setSelection(const std::vector<quint64>& entities);
    const std::vector<quint64>& selection() const;  // what is highlighted

    void fitToScene();
    void setStandardView(StandardView view);
    void setMarkersVisible(bool visible);
    void setJointsVisible(bool visible);
    void setGridVisible(bool visible);
    void setFloorVisible(bool visible);  // the floor under the mechanism, with its shadows
    void setContactForcesVisible(bool visible);
    void setCentresOfMassVisible(bool visible);  // off at first
    // Contact force arrows of the shown instant (empty: none).
    void setContacts(const std::vector<engine::ContactForce>& contacts);
    // The couplers' tooth forces of the shown instant (Outputs::couplerForce; empty: none),
    // arrows at their pitch points shown with the contact forces.
    void setCouplerForces(const std::vector<double>& forces);

    // The manipulator (ui/viewport/gizmo.h) at frame X_WG: arrows or rings along its axes
    // (the world's or the selection's own), a constant size on screen, drawn over the parts.
    // Pressing a handle starts a drag instead of turning the camera: gizmoDragged reports the
    // moved amount (m or rad) at every pointer move, snapped when snapping is on (Ctrl held
    // inverts it); digits typed during the drag give the amount exactly (mm or degrees), Enter
    // or releasing the button ends the drag, Esc cancels it.
    void showGizmo(const engine::Transform& X_WG);
    void hideGizmo();
    // A notice across the top of the view (e.g. that the run shown is stale, or why the scene
    // cannot run); empty hides it.
    void setBanner(const QString& text);
    QString banner() const;
    bool gizmoVisible() const;
    void setGizmoMode(GizmoMode mode);
    GizmoMode gizmoMode() const;
    // Grid step [m] and angle increment [rad]; in world axes a move lands on the grid.
    void setGizmoSnapping(bool on, double step, double angleStep, bool worldAxes);
    bool gizmoDragging() const;
    // What has been typed during the drag (empty: the pointer gives the amount).
    QString gizmoEntry() const;
    // Where a point `along` (0..1) a handle appears in the widget (tests press there).
    QPointF gizmoHandlePoint(GizmoHandle handle, double along = 0.5) const;
    // The handle under a widget position, if any.
    bool gizmoHandleAt(const QPointF& position, GizmoHandle& handle) const;

    // Rendering quality: the key light's shadows and anti-aliasing (FXAA), both on unless
    // $MOTUS_VIEW_QUALITY says otherwise ("high", "low", or a comma list of "shadows" and
    // "aa"), which tests and scripted screenshots use; the main window keeps the user's choice.
    // Under software rendering (llvmpipe) anti-aliasing starts off unless it was chosen.
    struct Quality {
        bool shadows = true;
        bool antiAliasing = true;
    };
    static Quality defaultQuality();
    static bool qualityFromEnvironment();  // $MOTUS_VIEW_QUALITY is set
    void setShadowsEnabled(bool on);
    bool shadowsEnabled() const;
    void setAntiAliasing(bool on);
    bool antiAliasing() const;
    // Parts drawn see-through: all of them (the ground excepted), or single parts by id.
    void setPartsTranslucent(bool on);
    bool partsTranslucent() const;
    void setPartTranslucent(quint64 part, bool on);
    bool partTranslucent(quint64 part) const;

    // Camera state, for tests and for restoring a view.
    double cameraDistance() const;
    // The camera as the view shows it, for a video of the run (world, m): eye, centre looked at,
    // up, the vertical field of view [deg]; and which kinds of node it draws (NodeMask bits).
    void cameraView(double eye[3], double centre[3], double up[3], double& fovyDeg,
                    unsigned& cullMask) const;
    int frameCount() const;  // frames rendered so far
    // How long a run's next frame should wait [s] so that drawing takes at most half the GUI
    // thread's time: as long as the last frame took to draw, less the time since it ended, once
    // a frame takes slowFrameSeconds or more (0.2 s: software rendering of many thousands of
    // parts); 0 for a view that draws faster. A run shown at every new state drew frame after
    // frame, and a click on Pause waited behind them.
    double secondsBeforeNextFrame() const;
    void setSlowFrameSeconds(double seconds);
    double drawingSeconds() const;  // spent drawing frames so far

signals:
    void frameRendered();
    // A left click (not a drag) on the view: the entity under it, 0 for empty space.
    void entityClicked(quint64 entity);
    // The same click, with what lies under it and the keyboard modifiers held.
    void pointClicked(const ui::PickResult& hit, Qt::KeyboardModifiers modifiers);
    // A drag of the manipulator: started on a handle, moved by `amount` (m or rad, along or
    // about the handle's axis, from where it started), finished (accepted) or cancelled.
    void gizmoDragStarted(ui::GizmoHandle handle);
    void gizmoDragged(double amount);
    void gizmoDragFinished(bool accepted);

protected:
    void initializeGL() override;
    void resizeGL(int width, int height) override;
    void paintGL() override;

    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void keyReleaseEvent(QKeyEvent* event) override;
    bool event(QEvent* event) override;

private:
    void releaseGlObjects();
    void applyTranslucency();
    void setMaskBit(unsigned bit, bool on);
    void updateGizmoScale() const;
    void gizmoMoved(const QPointF& position, Qt::KeyboardModifiers modifiers);
    void finishGizmoDrag(bool accepted);
    void showGizmoAmount();

    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace ui
