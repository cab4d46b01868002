#include "ui/mainwindow/manipulation.h"

#include <chrono>
#include <cmath>

#include <QMetaObject>

#include <QAction>
#include <QActionGroup>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QMenu>
#include <QPainter>
#include <QPixmap>
#include <QSettings>
#include <QToolBar>

#include "engine/analysis/drag.h"
#include "engine/analysis/statics.h"
#include "engine/model/model.h"
#include "engine/state/state.h"
#include "ui/common/text.h"
#include "ui/document/scene_document.h"

namespace ui {
namespace {

using engine::Transform;
using engine::Vec3;
constexpr MessageSeverity kError = MessageSeverity::Error, kWarning = MessageSeverity::Warning,
                          kInfo = MessageSeverity::Info;

// Where entity `id` is: a part (index), or a marker (its part's index and its own).
struct Located {
    int part = -1;
    int marker = -1;
};
Located locate(const engine::SceneSpec& spec, engine::EntityId id) {
    for (std::size_t p = 0; p < spec.parts.size(); ++p) {
        if (spec.parts[p].id == id) return {static_cast<int>(p), -1};
        for (std::size_t m = 0; m < spec.parts[p].markers.size(); ++m)
            if (spec.parts[p].markers[m].id == id)
                return {static_cast<int>(p), static_cast<int>(m)};
    }
    return {};
}

// The toolbar's pictograms, drawn in code: a cross of arrows (move) and a turning arrow.
QIcon pictogram(bool rotate) {
    QPixmap pixmap(24, 24);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing);
    const QColor ink(0x33, 0x3d, 0x4a);
    p.setPen(QPen(ink, 1.8));
    p.setBrush(ink);
    auto head = [&](QPointF tip, QPointF d) {
        const QPointF n(-d.y(), d.x());
        p.drawPolygon(QPolygonF() << tip << tip - 4.5 * d + 3.0 * n << tip - 4.5 * d - 3.0 * n);
    };
    if (rotate) {
        p.setBrush(Qt::NoBrush);
        p.drawArc(QRectF(4, 4, 16, 16), 90 * 16, 270 * 16);
        p.setBrush(ink);
        head(QPointF(12, 4), QPointF(1, 0));
    } else {
        p.drawLine(QPointF(12, 3), QPointF(12, 21));
        p.drawLine(QPointF(3, 12), QPointF(21, 12));
        head(QPointF(12, 2), QPointF(0, -1));
        head(QPointF(12, 22), QPointF(0, 1));
        head(QPointF(2, 12), QPointF(-1, 0));
        head(QPointF(22, 12), QPointF(1, 0));
    }
    return QIcon(pixmap);
}

// `X` moved by the manipulator: along world axis `a` by `amount`, or turned by `amount`
// about the axis `a` through `centre`.
Transform moved(const Transform& X, GizmoMode mode, const Vec3& a, const Vec3& centre,
                double amount) {
    if (mode == GizmoMode::Translate) return {X.R, X.p + amount * a};
    const engine::Quat R(Eigen::AngleAxisd(amount, a));
    return {(R * X.R).normalized(), centre + R * (X.p - centre)};
}

}  // namespace

Manipulation::Manipulation(SceneDocument* document, ViewportWidget* viewport, QWidget* window)
    : QObject(window), document_(document), viewport_(viewport), window_(window) {
    QSettings settings;
    local_ = settings.value(QStringLiteral("manipulator/localAxes"), false).toBool();
    snapping_ = settings.value(QStringLiteral("manipulator/snap"), false).toBool();
    gridStep_ =
        std::max(1e-6, settings.value(QStringLiteral("manipulator/gridStep"), 0.01).toDouble());
    angleStep_ = std::max(
        1e-6, settings.value(QStringLiteral("manipulator/angleStep"), angleStep_).toDouble());
    connect(viewport_, &ViewportWidget::gizmoDragStarted, this, &Manipulation::started);
    connect(viewport_, &ViewportWidget::gizmoDragged, this, &Manipulation::dragged);
    connect(viewport_, &ViewportWidget::gizmoDragFinished, this, &Manipulation::finished);
    // An edit, an undo or another document: the manipulator goes where the selection now is.
    connect(document_, &SceneDocument::sceneChanged, this, [this] {
        if (!dragging_) refresh();
    });
    connect(document_, &SceneDocument::documentReset, this, [this] {
        selection_ = engine::kNoEntity;
        refresh();
    });
    viewport_->setGizmoSnapping(snapping_, gridStep_, angleStep_, !local_);
}

Manipulation::~Manipulation() {
    ++generation_;
    if (worker_.joinable()) worker_.join();
}

void Manipulation::createActions(QMenu* menu, QToolBar* toolbar) {
    auto* group = new QActionGroup(this);
    moveAction_ = new QAction(pictogram(false), tr("&Move"), this);
    moveAction_->setObjectName(QStringLiteral("ManipulateMove"));
    moveAction_->setShortcut(Qt::Key_W);
    moveAction_->setToolTip(
        tr("Move the selected part or marker along an axis (W): drag an arrow"));
    rotateAction_ = new QAction(pictogram(true), tr("&Rotate"), this);
    rotateAction_->setObjectName(QStringLiteral("ManipulateRotate"));
    rotateAction_->setShortcut(Qt::Key_E);
    rotateAction_->setToolTip(
        tr("Turn the selected part or marker about an axis (E): drag a ring"));
    for (QAction* a : {moveAction_, rotateAction_}) {
        a->setCheckable(true);
        group->addAction(a);
        a->setShortcutContext(Qt::WindowShortcut);
    }
    moveAction_->setChecked(true);
    connect(moveAction_, &QAction::triggered, this, [this] { setMode(GizmoMode::Translate); });
    connect(rotateAction_, &QAction::triggered, this, [this] { setMode(GizmoMode::Rotate); });
    localAction_ = new QAction(tr("&Local Axes"), this);
    localAction_->setObjectName(QStringLiteral("ManipulateLocal"));
    localAction_->setCheckable(true);
    localAction_->setChecked(local_);
    localAction_->setShortcut(Qt::Key_L);
    localAction_->setToolTip(
        tr("The manipulator along the selection's own axes instead of the world's (L)"));
    connect(localAction_, &QAction::toggled, this, &Manipulation::setLocalAxes);
    snapAction_ = new QAction(tr("&Snap"), this);
    snapAction_->setObjectName(QStringLiteral("ManipulateSnap"));
    snapAction_->setCheckable(true);
    snapAction_->setChecked(snapping_);
    snapAction_->setShortcut(Qt::Key_G);
    snapAction_->setToolTip(
        tr("Moves land on the grid step and turns on the angle increment (G); Ctrl while "
           "dragging does the opposite"));
    connect(snapAction_, &QAction::toggled, this, &Manipulation::setSnapping);

    suspendAction_ = new QAction(tr("Suspend &Motions While Dragging"), this);
    suspendAction_->setObjectName(QStringLiteral("ManipulateSuspendMotions"));
    suspendAction_->setCheckable(true);
    suspendAction_->setChecked(suspendMotions_);
    suspendAction_->setToolTip(
        tr("A drag moves parts that motions drive, as if the motions were not there (a run "
           "starts from the motions' own values again)"));
    connect(suspendAction_, &QAction::toggled, this, &Manipulation::setSuspendMotions);

    QMenu* sub = menu->addMenu(tr("&Manipulate"));
    sub->addActions({moveAction_, rotateAction_});
    sub->addSeparator();
    sub->addActions({localAction_, snapAction_, suspendAction_});

    toolbar->addActions({moveAction_, rotateAction_, localAction_, snapAction_});
    gridBox_ = new QDoubleSpinBox(toolbar);
    gridBox_->setObjectName(QStringLiteral("ManipulateGridStep"));
    gridBox_->setRange(0.001, 10000.0);
    gridBox_->setDecimals(3);
    gridBox_->setSuffix(tr(" mm"));
    gridBox_->setToolTip(tr("Grid step of snapped moves"));
    gridBox_->setValue(gridStep_ * 1e3);
    angleBox_ = new QDoubleSpinBox(toolbar);
    angleBox_->setObjectName(QStringLiteral("ManipulateAngleStep"));
    angleBox_->setRange(0.01, 180.0);
    angleBox_->setDecimals(2);
    angleBox_->setSuffix(tr("°"));
    angleBox_->setToolTip(tr("Angle increment of snapped turns"));
    angleBox_->setValue(engine::radToDeg(angleStep_));
    toolbar->addWidget(new QLabel(tr(" Grid "), toolbar));
    toolbar->addWidget(gridBox_);
    toolbar->addWidget(new QLabel(tr(" Angle "), toolbar));
    toolbar->addWidget(angleBox_);
    connect(gridBox_, &QDoubleSpinBox::valueChanged, this,
            [this](double mm) { setGridStep(mm * 1e-3); });
    connect(angleBox_, &QDoubleSpinBox::valueChanged, this,
            [this](double deg) { setAngleStep(engine::degToRad(deg)); });
}

void Manipulation::setSuspendMotions(bool on) {
    suspendMotions_ = on;
    if (suspendAction_ && suspendAction_->isChecked() != on) suspendAction_->setChecked(on);
}

void Manipulation::setMode(GizmoMode mode) {
    mode_ = mode;
    if (moveAction_) (mode == GizmoMode::Translate ? moveAction_ : rotateAction_)->setChecked(true);
    viewport_->setGizmoMode(mode);
}

void Manipulation::setLocalAxes(bool local) {
    local_ = local;
    if (localAction_ && localAction_->isChecked() != local) localAction_->setChecked(local);
    settingsChanged();
    refresh();
}

void Manipulation::setSnapping(bool on) {
    snapping_ = on;
    if (snapAction_ && snapAction_->isChecked() != on) snapAction_->setChecked(on);
    settingsChanged();
}

void Manipulation::setGridStep(double metres) {
    if (!(metres > 0.0)) return;
    gridStep_ = metres;
    if (gridBox_ && std::abs(gridBox_->value() - metres * 1e3) > 1e-9)
        gridBox_->setValue(metres * 1e3);
    settingsChanged();
}

void Manipulation::setAngleStep(double radians) {
    if (!(radians > 0.0)) return;
    angleStep_ = radians;
    if (angleBox_ && std::abs(angleBox_->value() - engine::radToDeg(radians)) > 1e-9)
        angleBox_->setValue(engine::radToDeg(radians));
    settingsChanged();
}

void Manipulation::settingsChanged() {
    viewport_->setGizmoSnapping(snapping_, gridStep_, angleStep_, !local_);
    QSettings settings;
    settings.setValue(QStringLiteral("manipulator/localAxes"), local_);
    settings.setValue(QStringLiteral("manipulator/snap"), snapping_);
    settings.setValue(QStringLiteral("manipulator/gridStep"), gridStep_);
    settings.setValue(QStringLiteral("manipulator/angleStep"), angleStep_);
}

void Manipulation::setSelection(engine::EntityId entity) {
    selection_ = entity;
    refresh();
}

void Manipulation::setDesignPoseShown(bool shown) {
    if (shown == designShown_) return;
    designShown_ = shown;
    refresh();
}

void Manipulation::setSelecting(bool selecting) {
    if (selecting == selecting_) return;
    selecting_ = selecting;
    refresh();
}

Transform Manipulation::gizmoFrame(const engine::SceneSpec& spec) const {
    const Located at = locate(spec, selection_);
    const engine::Part& part = spec.parts[static_cast<std::size_t>(at.part)];
    Transform X = part.X_WP;
    if (at.marker >= 0) X = X * part.markers[static_cast<std::size_t>(at.marker)].X_PM;
    if (!local_) X.R = engine::Quat::Identity();
    return X;
}

void Manipulation::refresh() {
    const engine::SceneSpec* spec = document_->scene();
    const Located at = spec ? locate(*spec, selection_) : Located{};
    const bool movable = designShown_ && selecting_ && at.part >= 0 &&
                         (at.marker >= 0 || !spec->parts[static_cast<std::size_t>(at.part)].ground);
    if (!movable) {
        viewport_->hideGizmo();
        return;
    }
    viewport_->setGizmoMode(mode_);
    viewport_->showGizmo(gizmoFrame(*spec));
}

void Manipulation::started(GizmoHandle handle) {
    const engine::SceneSpec* spec = document_->scene();
    if (!spec) return;
    const Located at = locate(*spec, selection_);
    if (at.part < 0) return;
    dragging_ = true;
    handle_ = handle;
    before_ = *spec;
    current_ = *spec;
    figures_ = {};
    partIndex_ = at.part;
    marker_ = at.marker >= 0;
    markerIndex_ = marker_ ? static_cast<std::size_t>(at.marker) : 0;
    X_WG0_ = gizmoFrame(*spec);
    const engine::Part& part = spec->parts[static_cast<std::size_t>(at.part)];
    X_W0_ = marker_ ? part.X_WP * part.markers[markerIndex_].X_PM : part.X_WP;
    drag_.reset();
    if (!marker_) {
        engine::SceneSpec dragged = *spec;
        // Suspended motions are deactivated for the drag (kept, so what names them still
        // finds them: an analysis' set, a plot).
        if (suspendMotions_)
            for (engine::MotionSpec& m : dragged.motions) m.active = false;
        const engine::CompileResult compiled = engine::compile(dragged);
        if (!compiled.model) {
            emit message(kError, tr("The part cannot be dragged: %1")
                                     .arg(compiled.diagnostics.empty()
                                              ? tr("the scene does not compile")
                                              : toQString(compiled.diagnostics.front().message)));
            return;
        }
        drag_ = std::make_unique<engine::DragAssembly>(
            *compiled.model, engine::initialState(*compiled.model), partIndex_,
            handle.mode == GizmoMode::Translate ? engine::DragKind::Move : engine::DragKind::Turn);
        if (!drag_->ok()) {
            emit message(
                kError,
                tr("The part cannot be dragged: %1").arg(toQString(drag_->status().message)));
            drag_.reset();
        }
    }
}

bool Manipulation::moveMarker(const Transform& X_WM) {
    // The marker moves on its part; the part stays, the parts joined through the marker follow.
    engine::SceneSpec candidate = current_;
    engine::Part& part = candidate.parts[static_cast<std::size_t>(partIndex_)];
    part.markers[markerIndex_].X_PM = part.X_WP.inverse() * X_WM;
    const engine::CompileResult compiled = engine::compile(candidate);
    if (!compiled.model) return false;
    std::vector<Transform> poses;
    if (part.ground) {
        const engine::StaticResult assembled =
            engine::assemble(*compiled.model, engine::initialState(*compiled.model));
        if (!assembled.status.ok) return false;
        poses = engine::partPoses(*compiled.model, assembled.state);
    } else {
        engine::DragAssembly drag(*compiled.model, engine::initialState(*compiled.model),
                                  partIndex_);
        if (!drag.ok()) return false;
        const engine::DragResult r = drag.moveTo(part.X_WP);
        if (!r.status.ok) return false;
        figures_.worstGap = std::max(figures_.worstGap, r.residual);
        poses = drag.partPoses();
    }
    candidate.placeParts(poses);
    current_ = std::move(candidate);
    return true;
}

void Manipulation::dragged(double amount) {
    if (!dragging_) return;
    ++figures_.events;
    const Vec3 axis = X_WG0_.R * Vec3::Unit(handle_.axis);
    const Transform target = moved(X_W0_, handle_.mode, axis, X_WG0_.p, amount);
    lastTarget_ = target;
    if (!marker_ && drag_ && async_) {
        // Solved on the worker: the newest target waits for the solve under way (older ones
        // are passed over, as a view skips frames it cannot draw in time).
        if (solving_)
            pending_ = target;
        else
            solveOnWorker(target);
        return;
    }
    const auto clock = std::chrono::steady_clock::now();
    if (marker_) {
        const bool followed = moveMarker(target);
        viewport_->showScene(current_, /*fit=*/false);
        applied(followed, {},
                std::chrono::duration<double>(std::chrono::steady_clock::now() - clock).count());
    } else if (drag_) {
        const engine::DragResult r = drag_->moveTo(target);
        figures_.worstGap = std::max(figures_.worstGap, r.residual);
        applied(r.status.ok && r.followed == 1.0, drag_->partPoses(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - clock).count());
        // Slower than a frame: the next events go to the worker, the view keeps drawing.
        if (figures_.lastEventSeconds > asyncAfter_) async_ = true;
    } else {
        applied(false, {}, 0.0);
    }
}

void Manipulation::applied(bool followed, const std::vector<Transform>& poses, double seconds) {
    current_.placeParts(poses);
    if (!poses.empty()) viewport_->setPartPoses(poses);
    if (!followed) ++figures_.held;
    figures_.lastEventSeconds = seconds;
    // The manipulator rides along with what it moves.
    Transform frame = X_WG0_;
    const engine::Part& part = current_.parts[static_cast<std::size_t>(partIndex_)];
    const Transform now = marker_ ? part.X_WP * part.markers[markerIndex_].X_PM : part.X_WP;
    frame.p = now.p;
    if (local_) frame.R = now.R;
    viewport_->showGizmo(frame);
    emit status(followed ? QString() : heldReason());
}

QString Manipulation::heldReason() const {
    const engine::SceneSpec& spec = before_;
    if (!suspendMotions_ && !spec.motions.empty() && !marker_) {
        QStringList names;
        for (const engine::MotionSpec& m : spec.motions) names << toQString(m.name);
        return tr("The drag cannot move %1 further: motion%2 %3 hold%4 the joints %5 drive%4. "
                  "Edit ▸ Manipulate ▸ Suspend Motions While Dragging lets the parts move.")
            .arg(toQString(spec.parts[static_cast<std::size_t>(partIndex_)].name),
                 names.size() == 1 ? QString() : QStringLiteral("s"),
                 names.join(QStringLiteral(", ")),
                 names.size() == 1 ? QStringLiteral("s") : QString(),
                 names.size() == 1 ? tr("it") : tr("they"));
    }
    return tr("The joints stop the drag here: the parts stay at the last pose that closes them.");
}

void Manipulation::solveOnWorker(const Transform& target) {
    if (worker_.joinable()) worker_.join();
    solving_ = true;
    ++figures_.workerSolves;
    worker_ = std::thread([this, target, drag = drag_.get(), generation = generation_] {
        const auto clock = std::chrono::steady_clock::now();
        engine::DragResult result = drag->moveTo(target);
        std::vector<Transform> poses = drag->partPoses();
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - clock).count();
        QMetaObject::invokeMethod(
            this,
            [this, generation, result = std::move(result), poses = std::move(poses), seconds] {
                if (generation != generation_) return;  // the drag ended meanwhile
                solving_ = false;
                figures_.worstGap = std::max(figures_.worstGap, result.residual);
                applied(result.status.ok && result.followed == 1.0, poses, seconds);
                if (pending_) {
                    const Transform next = *pending_;
                    pending_.reset();
                    solveOnWorker(next);
                }
            },
            Qt::QueuedConnection);
    });
}

void Manipulation::setAsyncAfter(double seconds) {
    asyncAfter_ = seconds;
}

void Manipulation::finished(bool accepted) {
    if (!dragging_) return;
    dragging_ = false;
    // A solve under way on the worker ends first; its late answer is dropped, and the last
    // target the pointer gave is solved here, so the drag ends where the pointer left it.
    if (worker_.joinable()) worker_.join();
    ++generation_;
    if (async_ && accepted && drag_ && lastTarget_ && (solving_ || pending_)) {
        const engine::DragResult r = drag_->moveTo(*lastTarget_);
        figures_.worstGap = std::max(figures_.worstGap, r.residual);
        applied(r.status.ok && r.followed == 1.0, drag_->partPoses(), 0.0);
    }
    solving_ = false;
    pending_.reset();
    async_ = false;
    lastTarget_.reset();
    drag_.reset();
    emit status(QString());
    const engine::Part& part = before_.parts[static_cast<std::size_t>(partIndex_)];
    const QString name = marker_ ? toQString(part.name + "." + part.markers[markerIndex_].name)
                                 : toQString(part.name);
    if (!accepted || figures_.events == 0) {
        // Everything back where it was.
        viewport_->showScene(before_, /*fit=*/false);
        refresh();
        return;
    }
    // Moved at all (beyond the assembly's own rounding)? A drag held from its first event
    // says why, instead of reporting a move that did not happen.
    bool changed = false;
    for (std::size_t p = 0; p < before_.parts.size(); ++p) {
        const Transform& a = before_.parts[p].X_WP;
        const Transform& b = current_.parts[p].X_WP;
        changed = changed || (a.p - b.p).norm() > 1e-9 || a.R.angularDistance(b.R) > 1e-9;
    }
    if (marker_) {
        const Transform& a = part.markers[markerIndex_].X_PM;
        const Transform& b =
            current_.parts[static_cast<std::size_t>(partIndex_)].markers[markerIndex_].X_PM;
        changed = changed || a.p != b.p || a.R.coeffs() != b.R.coeffs();
    }
    if (!changed) {
        viewport_->showScene(before_, /*fit=*/false);
        refresh();
        emit message(kWarning, tr("Nothing moved. %1").arg(heldReason()));
        return;
    }
    // One undoable edit for the whole drag (each drag its own, never merged with the last).
    static int dragNumber = 0;
    if (const auto refused =
            document_->move(current_,
                            handle_.mode == GizmoMode::Translate ? tr("Move %1").arg(name)
                                                                 : tr("Rotate %1").arg(name),
                            QStringLiteral("drag-%1").arg(++dragNumber))) {
        viewport_->showScene(before_, /*fit=*/false);
        refresh();
        emit message(kError, tr("Not moved: %1").arg(toQString(refused->message)));
        return;
    }
    const QString events =
        (figures_.events == 1 ? tr("1 drag event") : tr("%1 drag events").arg(figures_.events)) +
        (figures_.held > 0 ? tr(", stopped short at %1 of them").arg(figures_.held) : QString());
    emit message(kInfo,
                 before_.joints.empty()
                     ? tr("%1 %2 (%3).")
                           .arg(handle_.mode == GizmoMode::Translate ? tr("Moved") : tr("Turned"),
                                name, events)
                     : tr("%1 %2 (%3); the joints held to %4 m or better.")
                           .arg(handle_.mode == GizmoMode::Translate ? tr("Moved") : tr("Turned"),
                                name, events)
                           .arg(std::max(figures_.worstGap, 1e-15), 0, 'g', 2));
}

}  // namespace ui
