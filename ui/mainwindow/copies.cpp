#include "ui/mainwindow/copies.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QMenu>
#include <QMimeData>
#include <QSpinBox>

#include "engine/io/scene_json.h"
#include "ui/common/text.h"
#include "ui/document/scene_document.h"

namespace ui {
namespace {

constexpr MessageSeverity kError = MessageSeverity::Error, kWarning = MessageSeverity::Warning,
                          kInfo = MessageSeverity::Info;

// Three spin boxes for a point or a vector in millimetres.
struct VectorFields {
    QDoubleSpinBox* box[3];
    QWidget* widget;
    explicit VectorFields(QWidget* parent, const engine::Vec3& value)
        : widget(new QWidget(parent)) {
        auto* row = new QHBoxLayout(widget);
        row->setContentsMargins(0, 0, 0, 0);
        for (int k = 0; k < 3; ++k) {
            box[k] = new QDoubleSpinBox(widget);
            box[k]->setRange(-1e6, 1e6);
            box[k]->setDecimals(3);
            box[k]->setPrefix(QStringLiteral("xyz").mid(k, 1) + QStringLiteral(" "));
            box[k]->setSuffix(QStringLiteral(" mm"));
            box[k]->setValue(value(k) * 1e3);
            row->addWidget(box[k]);
        }
    }
    engine::Vec3 value() const {
        return {box[0]->value() * 1e-3, box[1]->value() * 1e-3, box[2]->value() * 1e-3};
    }
};

// OK and Cancel at the bottom of a form dialog.
void addOkCancel(QDialog& dialog, QFormLayout& form) {
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    form.addRow(buttons);
    QObject::connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
}

// Where Paste and Duplicate put copies: beside the originals along x, clear of them by a
// tenth of a metre.
engine::CopyPlacement beside(const engine::SceneSpec& source,
                             const std::vector<engine::EntityId>& parts) {
    double lo = 1e300, hi = -1e300;
    for (const engine::Part& part : source.parts)
        for (engine::EntityId id : parts)
            if (part.id == id) {
                lo = std::min(lo, part.X_WP.p.x());
                hi = std::max(hi, part.X_WP.p.x());
            }
    engine::CopyPlacement placement;
    if (hi >= lo) placement.X.p = engine::Vec3(hi - lo + 0.1, 0.0, 0.0);
    return placement;
}

}  // namespace

Copies::Copies(SceneDocument* document, std::function<std::vector<engine::EntityId>()> selection,
               QWidget* window)
    : QObject(window), document_(document), selection_(std::move(selection)), window_(window) {}

QString Copies::mimeType() {
    return QStringLiteral("application/x-motus-parts+json");
}

void Copies::createActions(QMenu* menu, const std::vector<QWidget*>& targets) {
    auto action = [&](const QString& text, const QString& name, const QKeySequence& keys,
                      auto slot) {
        QAction* a = menu->addAction(text, this, slot);
        a->setObjectName(name);
        a->setShortcut(keys);
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        for (QWidget* w : targets) w->addAction(a);
        return a;
    };
    action(tr("&Copy"), QStringLiteral("EditCopy"), QKeySequence::Copy, [this] { copy(); });
    action(tr("&Paste"), QStringLiteral("EditPaste"), QKeySequence::Paste, [this] { paste(); });
    action(tr("D&uplicate"), QStringLiteral("EditDuplicate"), QKeySequence(Qt::CTRL | Qt::Key_D),
           [this] { duplicate(); });
    action(tr("&Mirror…"), QStringLiteral("EditMirror"),
           QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M), [this] { mirrorDialog(); });
    action(tr("&Array…"), QStringLiteral("EditArray"),
           QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A), [this] { arrayDialog(); });
}

std::vector<engine::EntityId> Copies::selectedParts() const {
    std::vector<engine::EntityId> parts;
    const engine::SceneSpec* spec = document_->scene();
    if (!spec) return parts;
    for (engine::EntityId id : selection_())
        for (const engine::Part& part : spec->parts)
            if (part.id == id && !part.ground) parts.push_back(id);
    return parts;
}

bool Copies::add(const engine::SceneSpec& source, const std::vector<engine::EntityId>& parts,
                 const std::vector<engine::CopyPlacement>& placements, const QString& text) {
    const engine::SceneSpec* spec = document_->scene();
    if (!spec) return false;
    engine::SceneSpec after = *spec;
    engine::EntityId first = engine::kNoEntity;
    for (const engine::CopyPlacement& placement : placements) {
        std::string error;
        const std::vector<engine::EntityId> made =
            engine::copyParts(after, source, parts, placement, error);
        if (made.empty()) {
            emit message(kError, tr("Cannot copy: %1.").arg(toQString(error)));
            return false;
        }
        if (first == engine::kNoEntity) first = made.front();
    }
    const std::size_t before = spec->parts.size();
    if (const auto refused = document_->add(std::move(after), text)) {
        emit message(kError, tr("Cannot copy: %1").arg(toQString(refused->message)));
        return false;
    }
    emit message(kInfo,
                 tr("%1: %2 new parts.").arg(text).arg(document_->scene()->parts.size() - before));
    emit created(first);
    return true;
}

bool Copies::copy() {
    const std::vector<engine::EntityId> parts = selectedParts();
    if (parts.empty()) {
        emit message(kWarning, tr("Nothing to copy: select parts (the ground stays)."));
        return false;
    }
    // A scene of its own: the ground (every scene has one) and the parts with what lies
    // between them, under their own names.
    engine::SceneSpec clip;
    engine::Part ground;
    ground.id = clip.newId();
    ground.name = "ground";
    ground.ground = true;
    clip.parts.push_back(ground);
    std::string error;
    if (engine::copyParts(clip, *document_->scene(), parts, {}, error).empty()) {
        emit message(kError, tr("Cannot copy: %1.").arg(toQString(error)));
        return false;
    }
    const QByteArray json = QByteArray::fromStdString(engine::io::sceneToJson(clip));
    auto* data = new QMimeData;
    data->setData(mimeType(), json);
    data->setText(QString::fromUtf8(json));
    QApplication::clipboard()->setMimeData(data);
    emit message(kInfo, tr("Copied %1 parts.").arg(clip.parts.size() - 1));
    return true;
}

bool Copies::paste() {
    const QMimeData* data = QApplication::clipboard()->mimeData();
    if (!data || !data->hasFormat(mimeType())) {
        emit message(kWarning, tr("Nothing to paste: copy parts first (Edit ▸ Copy)."));
        return false;
    }
    const engine::io::SceneLoadResult clip =
        engine::io::parseScene(data->data(mimeType()).toStdString());
    if (!clip.scene) {
        emit message(kError, tr("The clipboard's parts cannot be read: %1")
                                 .arg(clip.diagnostics.empty()
                                          ? QString()
                                          : toQString(clip.diagnostics.front().message)));
        return false;
    }
    std::vector<engine::EntityId> parts;
    for (const engine::Part& part : clip.scene->parts)
        if (!part.ground) parts.push_back(part.id);
    return add(*clip.scene, parts, {beside(*clip.scene, parts)}, tr("Paste"));
}

bool Copies::duplicate() {
    const std::vector<engine::EntityId> parts = selectedParts();
    if (parts.empty()) {
        emit message(kWarning, tr("Nothing to duplicate: select parts (the ground stays)."));
        return false;
    }
    return add(*document_->scene(), parts, {beside(*document_->scene(), parts)}, tr("Duplicate"));
}

bool Copies::mirror(int axis, const engine::Vec3& point) {
    const std::vector<engine::EntityId> parts = selectedParts();
    if (parts.empty() || axis < 0 || axis > 2) {
        emit message(kWarning, tr("Nothing to mirror: select parts (the ground stays)."));
        return false;
    }
    engine::CopyPlacement mirrored;
    mirrored.mirrorAxis = axis;
    mirrored.mirrorPoint = point;
    return add(*document_->scene(), parts, {mirrored}, tr("Mirror"));
}

bool Copies::array(int count, const engine::Vec3& step) {
    const std::vector<engine::EntityId> parts = selectedParts();
    if (parts.empty()) {
        emit message(kWarning, tr("Nothing to array: select parts (the ground stays)."));
        return false;
    }
    if (count < 1 || !step.allFinite() || step.norm() == 0.0) {
        emit message(kError, tr("An array needs at least one copy and a step that is not zero."));
        return false;
    }
    std::vector<engine::CopyPlacement> placements(static_cast<std::size_t>(count));
    for (int k = 0; k < count; ++k) placements[static_cast<std::size_t>(k)].X.p = (k + 1) * step;
    return add(*document_->scene(), parts, placements, tr("Array of %1").arg(count));
}

void Copies::mirrorDialog() {
    if (selectedParts().empty()) {
        mirror(-1, {});
        return;
    }
    QDialog dialog(window_);
    dialog.setObjectName(QStringLiteral("MirrorDialog"));
    dialog.setWindowTitle(tr("Mirror Parts"));
    auto* form = new QFormLayout(&dialog);
    auto* plane = new QComboBox(&dialog);
    plane->setObjectName(QStringLiteral("MirrorPlane"));
    plane->addItems(
        {tr("YZ plane (normal x)"), tr("XZ plane (normal y)"), tr("XY plane (normal z)")});
    form->addRow(tr("Mirror in the"), plane);
    VectorFields point(&dialog, engine::Vec3::Zero());
    form->addRow(tr("through the point"), point.widget);
    addOkCancel(dialog, *form);
    if (dialog.exec() == QDialog::Accepted) mirror(plane->currentIndex(), point.value());
}

void Copies::arrayDialog() {
    if (selectedParts().empty()) {
        array(0, {});
        return;
    }
    QDialog dialog(window_);
    dialog.setObjectName(QStringLiteral("ArrayDialog"));
    dialog.setWindowTitle(tr("Array of Copies"));
    auto* form = new QFormLayout(&dialog);
    auto* count = new QSpinBox(&dialog);
    count->setObjectName(QStringLiteral("ArrayCount"));
    count->setRange(1, 1000);
    count->setValue(3);
    form->addRow(tr("Copies"), count);
    VectorFields step(&dialog, engine::Vec3(0.1, 0.0, 0.0));
    form->addRow(tr("each moved by"), step.widget);
    addOkCancel(dialog, *form);
    if (dialog.exec() == QDialog::Accepted) array(count->value(), step.value());
}

}  // namespace ui
