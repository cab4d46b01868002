#include "ui/mainwindow/design_variables_panel.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSlider>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "engine/analysis/assembly.h"
#include "engine/io/design_variables.h"
#include "engine/io/scene_json.h"
#include "engine/model/edit.h"
#include "ui/common/text.h"
#include "ui/common/variables.h"
#include "ui/document/scene_document.h"
#include "ui/mainwindow/study_dialog.h"

namespace ui {
namespace {

constexpr int kSliderSteps = 1000;

// The slider's range of a design variable: its minimum and maximum, else half and twice its
// value (−1 to 1 about zero).
std::pair<double, double> rangeOf(const engine::DesignVariableSpec& v) {
    double lo = v.minimum, hi = v.maximum;
    const double a = v.value == 0.0 ? -1.0 : v.value / 2.0,
                 b = v.value == 0.0 ? 1.0 : 2.0 * v.value;
    if (std::isnan(lo)) lo = std::min(a, b);
    if (std::isnan(hi)) hi = std::max(a, b);
    if (!(hi > lo)) hi = lo + 1.0;
    return {lo, hi};
}

std::string baseDirectory(const SceneDocument* document) {
    return document->path().isEmpty() ? std::string()
                                      : QFileInfo(document->path()).absolutePath().toStdString();
}

// A field's place as a user reads it: "crank · mass", "crank.pin · position x".
QString fieldLabel(const engine::SceneSpec& spec, const std::string& pointer) {
    const engine::EntityId id = spec.entityAt(pointer);
    const std::string base = spec.pointerOf(id).value_or("");
    QString owner =
        id == engine::kNoEntity ? QObject::tr("scene") : toQString(engine::entityName(spec, id));
    QStringList steps = toQString(pointer.substr(base.size())).split(u'/', Qt::SkipEmptyParts);
    static const QStringList vectors = {
        QStringLiteral("position"),        QStringLiteral("size"),
        QStringLiteral("centerOfMass"),    QStringLiteral("velocity"),
        QStringLiteral("angularVelocity"), QStringLiteral("scale"),
        QStringLiteral("gravity"),         QStringLiteral("axis")};
    if (steps.size() >= 2 && vectors.contains(steps[steps.size() - 2])) {
        bool number = false;
        const int k = steps.back().toInt(&number);
        if (number && k >= 0 && k < 3) steps.back() = QString(QChar(u'x' + k));
    }
    for (int k = 0; k + 1 < steps.size(); ++k)
        if (steps[k] == QStringLiteral("geometry")) {
            bool number = false;
            const int shape = steps[k + 1].toInt(&number);
            if (number) {
                steps[k] = QObject::tr("shape %1").arg(shape + 1);
                steps.removeAt(k + 1);
            }
        }
    return owner + QStringLiteral(" · ") + steps.join(u' ');
}

// The numeric fields of the element at `base` in the scene's file form, by pointer: its
// numbers (and those already bound), a vector left out as zero (a position) too.
QList<QPair<QString, QString>> numericFields(const engine::SceneSpec& spec, engine::EntityId id) {
    QList<QPair<QString, QString>> out;  // label, pointer
    const std::optional<std::string> base = spec.pointerOf(id);
    if (!base) return out;
    const QJsonDocument doc =
        QJsonDocument::fromJson(QByteArray::fromStdString(engine::io::sceneToJson(spec)));
    QJsonValue at = doc.object();
    for (const QString& step : toQString(*base).split(u'/', Qt::SkipEmptyParts))
        at = at.isArray() ? at.toArray().at(step.toInt()) : at.toObject().value(step);
    if (!at.isObject()) return out;
    const bool entity = id != engine::kNoEntity;
    static const QStringList skipped = {QStringLiteral("name"),
                                        QStringLiteral("markers"),
                                        QStringLiteral("orientation"),
                                        QStringLiteral("parts"),
                                        QStringLiteral("joints"),
                                        QStringLiteral("forces"),
                                        QStringLiteral("motions"),
                                        QStringLiteral("couplers"),
                                        QStringLiteral("variables"),
                                        QStringLiteral("sensors"),
                                        QStringLiteral("plots"),
                                        QStringLiteral("analyses"),
                                        QStringLiteral("designVariables"),
                                        QStringLiteral("minorVersion"),
                                        QStringLiteral("version"),
                                        QStringLiteral("pairs")};
    auto walk = [&](auto&& self, const QJsonValue& value, const QString& pointer) -> void {
        if (value.isObject()) {
            const QJsonObject object = value.toObject();
            for (auto it = object.begin(); it != object.end(); ++it)
                if (!skipped.contains(it.key())) self(self, it.value(), pointer + u'/' + it.key());
        } else if (value.isArray()) {
            const QJsonArray array = value.toArray();
            for (int k = 0; k < array.size(); ++k)
                self(self, array.at(k), pointer + u'/' + QString::number(k));
        } else if (value.isDouble() || (value.isString() && value.toString().startsWith(u'='))) {
            out.append({fieldLabel(spec, pointer.toStdString()), pointer});
        }
    };
    QJsonObject object = at.toObject();
    // A part's or a marker's position left out as zero.
    const engine::Part* part = nullptr;
    for (const engine::Part& p : spec.parts)
        if (p.id == id) part = &p;
    const bool marker = entity && !part && spec.entityAt(*base) == id &&
                        toQString(*base).contains(QStringLiteral("/markers/"));
    if ((part || marker) && !object.contains(QStringLiteral("position")))
        object.insert(QStringLiteral("position"), QJsonArray{0.0, 0.0, 0.0});
    walk(walk, object, toQString(*base));
    return out;
}

}  // namespace

struct DesignVariablesPanel::Impl {
    SceneDocument* document = nullptr;
    QWidget* rows = nullptr;
    QGridLayout* grid = nullptr;
    struct Row {
        QString name;
        QLabel* label = nullptr;
        QSlider* slider = nullptr;
        QDoubleSpinBox* value = nullptr;
        QDoubleSpinBox* minimum = nullptr;
        QDoubleSpinBox* maximum = nullptr;
    };
    std::vector<Row> variables;
    QTreeWidget* bound = nullptr;
    QLabel* empty = nullptr;
    QLabel* status = nullptr;
    QPushButton* remove = nullptr;
    QPushButton* rename = nullptr;
    QPushButton* bind = nullptr;
    QPushButton* unbind = nullptr;
    QPushButton* study = nullptr;
    StudyDialog* studyDialog = nullptr;
};

DesignVariablesPanel::DesignVariablesPanel(SceneDocument* document, QWidget* parent)
    : QWidget(parent), impl_(std::make_unique<Impl>()) {
    impl_->document = document;
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* buttons = new QHBoxLayout;
    auto* add = new QPushButton(tr("Add…"));
    add->setObjectName(QStringLiteral("DesignVariableAdd"));
    add->setToolTip(
        tr("A new design variable: a named number that numeric fields can be bound "
           "to"));
    impl_->remove = new QPushButton(tr("Remove…"));
    impl_->remove->setObjectName(QStringLiteral("DesignVariableRemove"));
    auto* rename = new QPushButton(tr("Rename…"));
    rename->setObjectName(QStringLiteral("DesignVariableRename"));
    rename->setToolTip(
        tr("Rename a design variable, in its bound fields and in the expressions "
           "that read it"));
    impl_->rename = rename;
    impl_->study = new QPushButton(tr("Study…"));
    impl_->study->setObjectName(QStringLiteral("DesignVariableStudy"));
    impl_->study->setToolTip(
        tr("Run the analysis for a table of values of the design variables, "
           "on every core, and plot a result against a variable"));
    buttons->addWidget(add);
    buttons->addWidget(rename);
    buttons->addWidget(impl_->remove);
    buttons->addStretch();
    buttons->addWidget(impl_->study);
    layout->addLayout(buttons);

    impl_->empty =
        new QLabel(tr("No design variables. Add one, then bind numeric fields to it "
                      "(a length, a mass, a stiffness) to change them together and "
                      "to sweep them in a study."));
    impl_->empty->setWordWrap(true);
    layout->addWidget(impl_->empty);
    impl_->rows = new QWidget;
    impl_->grid = new QGridLayout(impl_->rows);
    impl_->grid->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(impl_->rows);

    auto* boundTitle = new QLabel(tr("Bound fields"));
    boundTitle->setStyleSheet(QStringLiteral("font-weight: bold"));
    layout->addWidget(boundTitle);
    impl_->bound = new QTreeWidget;
    impl_->bound->setObjectName(QStringLiteral("BoundFields"));
    impl_->bound->setColumnCount(3);
    impl_->bound->setHeaderLabels({tr("Field"), tr("= expression"), tr("Value")});
    impl_->bound->setRootIsDecorated(false);
    impl_->bound->header()->setStretchLastSection(false);
    impl_->bound->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    impl_->bound->header()->setSectionResizeMode(1, QHeaderView::Stretch);
    impl_->bound->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    impl_->bound->setSortingEnabled(true);
    impl_->bound->sortByColumn(0, Qt::AscendingOrder);
    layout->addWidget(impl_->bound, 1);
    auto* bindButtons = new QHBoxLayout;
    impl_->bind = new QPushButton(tr("Bind…"));
    impl_->bind->setObjectName(QStringLiteral("DesignVariableBind"));
    impl_->bind->setToolTip(
        tr("Bind a numeric field of an element to an expression of the "
           "design variables"));
    impl_->unbind = new QPushButton(tr("Unbind"));
    impl_->unbind->setObjectName(QStringLiteral("DesignVariableUnbind"));
    impl_->unbind->setToolTip(tr("Free the selected field: it keeps its value"));
    bindButtons->addWidget(impl_->bind);
    bindButtons->addWidget(impl_->unbind);
    bindButtons->addStretch();
    layout->addLayout(bindButtons);
    impl_->status = new QLabel;
    impl_->status->setObjectName(QStringLiteral("DesignVariableStatus"));
    impl_->status->setWordWrap(true);
    impl_->status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(impl_->status);

    connect(add, &QPushButton::clicked, this, &DesignVariablesPanel::addAsked);
    connect(impl_->remove, &QPushButton::clicked, this, &DesignVariablesPanel::removeAsked);
    connect(rename, &QPushButton::clicked, this, &DesignVariablesPanel::renameAsked);
    connect(impl_->bind, &QPushButton::clicked, this, &DesignVariablesPanel::bindAsked);
    connect(impl_->unbind, &QPushButton::clicked, this, &DesignVariablesPanel::unbindSelected);
    connect(impl_->study, &QPushButton::clicked, this, [this] {
        study()->prepare();
        study()->show();
        study()->raise();
    });
    connect(impl_->bound, &QTreeWidget::itemSelectionChanged, this,
            [this] { impl_->unbind->setEnabled(!impl_->bound->selectedItems().isEmpty()); });
    connect(document, &SceneDocument::documentReset, this, [this] {
        setStatus(QString(), false);
        refresh();
    });
    connect(document, &SceneDocument::sceneChanged, this, &DesignVariablesPanel::refresh);
    refresh();
}

DesignVariablesPanel::~DesignVariablesPanel() = default;

StudyDialog* DesignVariablesPanel::study() {
    if (!impl_->studyDialog) impl_->studyDialog = new StudyDialog(impl_->document, this);
    return impl_->studyDialog;
}

void DesignVariablesPanel::setStatus(const QString& text, bool problem) {
    impl_->status->setText(text);
    impl_->status->setStyleSheet(problem ? QStringLiteral("color: #c0392b") : QString());
}

bool DesignVariablesPanel::outcome(const QString& refusal, QString* problem) {
    if (problem) *problem = refusal;
    setStatus(refusal, !refusal.isEmpty());
    return refusal.isEmpty();
}

QString DesignVariablesPanel::status() const {
    return impl_->status->text();
}

int DesignVariablesPanel::variableCount() const {
    return static_cast<int>(impl_->variables.size());
}

QSlider* DesignVariablesPanel::slider(int variable) const {
    return variable >= 0 && variable < variableCount()
               ? impl_->variables[static_cast<std::size_t>(variable)].slider
               : nullptr;
}

QDoubleSpinBox* DesignVariablesPanel::valueBox(int variable) const {
    return variable >= 0 && variable < variableCount()
               ? impl_->variables[static_cast<std::size_t>(variable)].value
               : nullptr;
}

int DesignVariablesPanel::boundFieldCount() const {
    return impl_->bound->topLevelItemCount();
}

void DesignVariablesPanel::refresh() {
    const engine::SceneSpec* spec = impl_->document->scene();
    const bool open = spec != nullptr;
    setEnabled(open);
    std::vector<QString> names;
    if (spec)
        for (const engine::DesignVariableSpec& v : spec->designVariables)
            names.push_back(toQString(v.name));
    bool same = names.size() == impl_->variables.size();
    for (std::size_t k = 0; same && k < names.size(); ++k)
        same = names[k] == impl_->variables[k].name;
    if (!same) rebuildRows();
    // Values and ranges as the scene has them now (a drag's own edit included), quietly.
    for (std::size_t k = 0; spec && k < impl_->variables.size(); ++k) {
        const engine::DesignVariableSpec& v = spec->designVariables[k];
        Impl::Row& row = impl_->variables[k];
        const auto [lo, hi] = rangeOf(v);
        const QSignalBlocker a(row.slider), b(row.value), c(row.minimum), d(row.maximum);
        if (!row.slider->isSliderDown())
            row.slider->setValue(static_cast<int>(
                std::lround(std::clamp((v.value - lo) / (hi - lo), 0.0, 1.0) * kSliderSteps)));
        if (!row.value->hasFocus()) row.value->setValue(v.value);
        row.minimum->setValue(lo);
        row.maximum->setValue(hi);
    }
    impl_->empty->setVisible(names.empty());
    impl_->remove->setEnabled(!names.empty());
    impl_->rename->setEnabled(!names.empty());
    impl_->study->setEnabled(!names.empty());
    impl_->bind->setEnabled(!names.empty());
    showBindings();
}

void DesignVariablesPanel::rebuildRows() {
    for (Impl::Row& row : impl_->variables)
        for (QWidget* w : std::initializer_list<QWidget*>{row.label, row.slider, row.value,
                                                          row.minimum, row.maximum})
            delete w;
    impl_->variables.clear();
    const engine::SceneSpec* spec = impl_->document->scene();
    if (!spec) return;
    auto box = [](const QString& tip) {
        auto* b = new QDoubleSpinBox;
        b->setDecimals(6);
        b->setRange(-1e12, 1e12);
        b->setKeyboardTracking(false);
        b->setButtonSymbols(QAbstractSpinBox::NoButtons);
        b->setToolTip(tip);
        b->setFocusPolicy(Qt::StrongFocus);
        return b;
    };
    int r = 0;
    for (const engine::DesignVariableSpec& v : spec->designVariables) {
        Impl::Row row;
        row.name = toQString(v.name);
        row.label = new QLabel(QStringLiteral("<b>%1</b>").arg(row.name.toHtmlEscaped()));
        row.slider = new QSlider(Qt::Horizontal);
        row.slider->setObjectName(QStringLiteral("DesignVariableSlider_") + row.name);
        row.slider->setRange(0, kSliderSteps);
        row.slider->setFocusPolicy(Qt::StrongFocus);
        row.slider->setToolTip(tr("Drag to change %1: the fields bound to it follow and the "
                                  "mechanism is assembled again")
                                   .arg(row.name));
        row.value = box(tr("The value of %1, in the unit of the fields bound to it").arg(row.name));
        row.value->setObjectName(QStringLiteral("DesignVariableValue_") + row.name);
        row.minimum = box(tr("The low end of the slider"));
        row.maximum = box(tr("The high end of the slider"));
        row.minimum->setMaximumWidth(80);
        row.maximum->setMaximumWidth(80);
        // The name and the value on one line, the slider between its ends below.
        impl_->grid->addWidget(row.label, 2 * r, 0);
        impl_->grid->addWidget(row.value, 2 * r, 1, 1, 3);
        impl_->grid->addWidget(row.minimum, 2 * r + 1, 0);
        impl_->grid->addWidget(row.slider, 2 * r + 1, 1, 1, 2);
        impl_->grid->addWidget(row.maximum, 2 * r + 1, 3);
        const QString name = row.name;
        connect(row.slider, &QSlider::valueChanged, this, [this, name](int step) {
            const engine::SceneSpec* s = impl_->document->scene();
            if (!s) return;
            for (const engine::DesignVariableSpec& dv : s->designVariables)
                if (toQString(dv.name) == name) {
                    const auto [lo, hi] = rangeOf(dv);
                    // Whole slider steps as the numbers they read (0.045, not 0.0450000001).
                    const double raw = lo + (hi - lo) * step / kSliderSteps;
                    const double value = std::stod(QString::number(raw, 'g', 6).toStdString());
                    setValue(name, value);
                    return;
                }
        });
        connect(row.value, &QDoubleSpinBox::valueChanged, this,
                [this, name](double value) { setValue(name, value); });
        auto setRange = [this, name](bool maximum, double bound) {
            engine::SceneSpec after = *impl_->document->scene();
            for (engine::DesignVariableSpec& dv : after.designVariables)
                if (toQString(dv.name) == name) {
                    const auto [lo, hi] = rangeOf(dv);
                    dv.minimum = maximum ? lo : bound;
                    dv.maximum = maximum ? bound : hi;
                }
            if (const auto refused =
                    impl_->document->changeFields(after, tr("Set the range of %1").arg(name)))
                setStatus(toQString(refused->message), true);
            refresh();
        };
        connect(row.minimum, &QDoubleSpinBox::valueChanged, this,
                [setRange](double v) { setRange(false, v); });
        connect(row.maximum, &QDoubleSpinBox::valueChanged, this,
                [setRange](double v) { setRange(true, v); });
        impl_->variables.push_back(row);
        ++r;
    }
    impl_->grid->setColumnStretch(1, 1);
    impl_->grid->setColumnStretch(2, 1);
}

void DesignVariablesPanel::showBindings() {
    impl_->bound->clear();
    const engine::SceneSpec* spec = impl_->document->scene();
    if (!spec) return;
    for (const engine::io::BoundField& f : engine::io::boundFields(*spec)) {
        auto* item = new QTreeWidgetItem({fieldLabel(*spec, f.pointer),
                                          QStringLiteral("=") + toQString(f.expression),
                                          QString::number(f.value, 'g', 6)});
        item->setData(0, Qt::UserRole, toQString(f.pointer));
        item->setToolTip(
            0, fieldLabel(*spec, f.pointer) + QStringLiteral("\n") + toQString(f.pointer));
        item->setToolTip(1, QStringLiteral("=") + toQString(f.expression));
        item->setToolTip(2, QString::number(f.value, 'g', 17));
        impl_->bound->addTopLevelItem(item);
    }
    impl_->unbind->setEnabled(false);
}

bool DesignVariablesPanel::setValue(const QString& name, double value, QString* problem) {
    const engine::SceneSpec* spec = impl_->document->scene();
    if (!spec) return false;
    engine::SceneSpec after = *spec;
    std::string error;
    if (!engine::io::setDesignVariables(after, {{name.toStdString(), value}},
                                        baseDirectory(impl_->document), error)) {
        setStatus(toQString(error), true);
        if (problem) *problem = toQString(error);
        refresh();
        return false;
    }
    // Assembled again where the bound fields leave the joints open (a crank longer than the
    // rod's place allows); where they already close, the fields keep their bound values.
    QString note;
    bool assembleProblem = false;
    {
        engine::SceneSpec assembled = after;
        const engine::SceneAssembly a = engine::assembleScene(assembled);
        if (a.result.status.ok && (a.moved > 1e-9 || a.turned > 1e-9)) {
            after = std::move(assembled);
            note = tr("Assembled: parts moved up to %1 mm").arg(a.moved * 1000.0, 0, 'g', 3);
        } else if (!a.result.status.ok && a.model) {
            note = tr("At %1 = %2 the mechanism cannot be assembled: %3")
                       .arg(name)
                       .arg(value, 0, 'g', 6)
                       .arg(toQString(a.result.status.message));
            assembleProblem = true;
        }
    }
    const SceneDocument::Refusal refused = impl_->document->changeFields(
        std::move(after), tr("Set %1 to %2").arg(name).arg(value, 0, 'g', 6),
        QStringLiteral("designVariable/") + name, engine::kNoEntity,
        QStringLiteral("designVariables"));
    if (refused) {
        const QString text =
            (refused->where.empty() ? QString() : toQString(refused->where) + ": ") +
            toQString(refused->message);
        setStatus(tr("%1 = %2 refused: %3").arg(name).arg(value, 0, 'g', 6).arg(text), true);
        if (problem) *problem = text;
        refresh();
        return false;
    }
    setStatus(note, assembleProblem);
    return true;
}

bool DesignVariablesPanel::addVariable(const QString& name, double value, QString* problem) {
    const engine::SceneSpec* spec = impl_->document->scene();
    if (!spec) return false;
    if (const std::string reason = engine::io::designVariableNameError(*spec, name.toStdString());
        !reason.empty())
        return outcome(toQString(reason), problem);
    engine::SceneSpec after = *spec;
    engine::DesignVariableSpec v;
    v.name = name.toStdString();
    v.value = value;
    after.designVariables.push_back(v);
    const auto refused = impl_->document->add(after, tr("Add design variable %1").arg(name));
    return outcome(refused ? toQString(refused->message) : QString(), problem);
}

void DesignVariablesPanel::addAsked() {
    bool ok = false;
    const QString name = QInputDialog::getText(this, tr("Add Design Variable"),
                                               tr("Name (a letter or _ first, then letters, "
                                                  "digits or _):"),
                                               QLineEdit::Normal, QStringLiteral("L"), &ok)
                             .trimmed();
    if (!ok || name.isEmpty()) return;
    const double value = QInputDialog::getDouble(this, tr("Add Design Variable"),
                                                 tr("Value of %1 (in the unit of the fields "
                                                    "you will bind to it):")
                                                     .arg(name),
                                                 0.1, -1e12, 1e12, 6, &ok);
    if (!ok) return;
    addVariable(name, value);
}

void DesignVariablesPanel::removeAsked() {
    const engine::SceneSpec* spec = impl_->document->scene();
    if (!spec || spec->designVariables.empty()) return;
    QStringList names;
    for (const engine::DesignVariableSpec& v : spec->designVariables) names << toQString(v.name);
    bool ok = false;
    const QString name = QInputDialog::getItem(
        this, tr("Remove Design Variable"),
        tr("Remove (the fields bound to it keep their values):"), names, 0, false, &ok);
    if (!ok) return;
    engine::SceneSpec after = *spec;
    std::erase_if(after.designVariables,
                  [&](const engine::DesignVariableSpec& v) { return toQString(v.name) == name; });
    // The fields that read it keep their values, unbound.
    int freed = 0;
    for (const engine::io::BoundField& f : engine::io::boundFields(*spec)) {
        const QString expression = toQString(f.expression);
        static const QRegularExpression word(QStringLiteral("[A-Za-z_][A-Za-z0-9_]*"));
        for (auto it = word.globalMatch(expression); it.hasNext();)
            if (it.next().captured() == name) {
                engine::io::unbindField(after, f.pointer);
                ++freed;
                break;
            }
    }
    if (const auto refused =
            impl_->document->remove(after, tr("Remove design variable %1").arg(name)))
        setStatus(toQString(refused->message), true);
    else
        setStatus(
            freed ? tr("%n field(s) that read %1 keep their values, unbound", "", freed).arg(name)
                  : QString(),
            false);
}

bool DesignVariablesPanel::renameVariable(const QString& from, const QString& to,
                                          QString* problem) {
    const engine::SceneSpec* spec = impl_->document->scene();
    if (!spec) return false;
    int index = -1;
    for (std::size_t k = 0; k < spec->designVariables.size(); ++k)
        if (toQString(spec->designVariables[k].name) == from) index = static_cast<int>(k);
    QString refusal;
    if (index < 0) {
        refusal = tr("no design variable '%1'").arg(from);
    } else if (to != from) {
        if (const std::string reason = engine::io::designVariableNameError(*spec, to.toStdString());
            !reason.empty())
            refusal = toQString(reason);
    }
    if (refusal.isEmpty() && to != from) {
        engine::SceneSpec after = *spec;
        renameDesignVariable(after, index, to.toStdString());
        if (const auto refused =
                impl_->document->rename(after, tr("Rename design variable %1 to %2").arg(from, to)))
            refusal = toQString(refused->message);
    }
    return outcome(refusal, problem);
}

void DesignVariablesPanel::renameAsked() {
    const engine::SceneSpec* spec = impl_->document->scene();
    if (!spec || spec->designVariables.empty()) return;
    QStringList names;
    for (const engine::DesignVariableSpec& v : spec->designVariables) names << toQString(v.name);
    bool ok = true;
    const QString from = names.size() == 1
                             ? names.front()
                             : QInputDialog::getItem(this, tr("Rename Design Variable"),
                                                     tr("Rename:"), names, 0, false, &ok);
    if (!ok) return;
    const QString to =
        QInputDialog::getText(this, tr("Rename Design Variable"), tr("New name of %1:").arg(from),
                              QLineEdit::Normal, from, &ok)
            .trimmed();
    if (ok && !to.isEmpty()) renameVariable(from, to);
}

bool DesignVariablesPanel::bind(const QString& pointer, const QString& expression,
                                QString* problem) {
    const engine::SceneSpec* spec = impl_->document->scene();
    if (!spec) return false;
    engine::SceneSpec after = *spec;
    std::string error;
    QString refusal;
    if (!engine::io::bindField(after, pointer.toStdString(), expression.toStdString(),
                               baseDirectory(impl_->document), error)) {
        refusal = toQString(error);
    } else if (const auto refused = impl_->document->changeFields(
                   after, tr("Bind %1 to =%2")
                              .arg(fieldLabel(*spec, pointer.toStdString()), expression))) {
        refusal = toQString(refused->where) + QStringLiteral(": ") + toQString(refused->message);
    }
    return outcome(refusal, problem);
}

bool DesignVariablesPanel::unbind(const QString& pointer) {
    const engine::SceneSpec* spec = impl_->document->scene();
    if (!spec) return false;
    engine::SceneSpec after = *spec;
    if (!engine::io::unbindField(after, pointer.toStdString())) return false;
    return !impl_->document->changeFields(
        after, tr("Unbind %1").arg(fieldLabel(*spec, pointer.toStdString())));
}

void DesignVariablesPanel::unbindSelected() {
    const QList<QTreeWidgetItem*> items = impl_->bound->selectedItems();
    if (items.isEmpty()) return;
    unbind(items.front()->data(0, Qt::UserRole).toString());
}

void DesignVariablesPanel::bindAsked() {
    const engine::SceneSpec* spec = impl_->document->scene();
    if (!spec || spec->designVariables.empty()) return;
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Bind a Field to Design Variables"));
    auto* form = new QFormLayout(&dialog);
    auto* element = new QComboBox;
    auto* field = new QComboBox;
    auto* expression = new QLineEdit(toQString(spec->designVariables.front().name));
    auto* preview = new QLabel;
    form->addRow(tr("Element:"), element);
    form->addRow(tr("Field:"), field);
    form->addRow(tr("= expression:"), expression);
    form->addRow(QString(), preview);
    QStringList names;
    for (const engine::DesignVariableSpec& v : spec->designVariables) names << toQString(v.name);
    auto* hint = new QLabel(tr("Of the design variables %1, e.g. %2/2 or 4*%2.")
                                .arg(names.join(QStringLiteral(", ")), names.front()));
    hint->setWordWrap(true);
    form->addRow(QString(), hint);
    element->addItem(tr("Scene settings"), QVariant::fromValue<qulonglong>(engine::kNoEntity));
    auto addElement = [&](engine::EntityId id) {
        element->addItem(toQString(engine::entityName(*spec, id)),
                         QVariant::fromValue<qulonglong>(id));
    };
    for (const engine::Part& p : spec->parts) {
        addElement(p.id);
        for (const engine::Marker& m : p.markers) addElement(m.id);
    }
    for (const engine::Joint& j : spec->joints) addElement(j.id);
    for (const engine::ForceSpec& f : spec->forces) addElement(f.id);
    for (const engine::MotionSpec& m : spec->motions) addElement(m.id);
    for (const engine::CouplerSpec& c : spec->couplers) addElement(c.id);
    auto fillFields = [&] {
        field->clear();
        const auto id = static_cast<engine::EntityId>(element->currentData().toULongLong());
        for (const auto& [label, pointer] : numericFields(*spec, id))
            field->addItem(label, pointer);
    };
    auto showPreview = [&] {
        engine::SceneSpec trial = *spec;
        std::string error;
        const QString pointer = field->currentData().toString();
        if (pointer.isEmpty()) {
            preview->setText(tr("This element has no numeric field"));
            return;
        }
        if (engine::io::bindField(trial, pointer.toStdString(), expression->text().toStdString(),
                                  baseDirectory(impl_->document), error)) {
            const auto f = engine::io::boundFieldAt(trial, pointer.toStdString());
            preview->setText(tr("The field becomes %1").arg(f ? f->value : 0.0, 0, 'g', 10));
            preview->setStyleSheet(QString());
        } else {
            preview->setText(toQString(error));
            preview->setStyleSheet(QStringLiteral("color: #c0392b"));
        }
    };
    QObject::connect(element, &QComboBox::currentIndexChanged, &dialog, [&] {
        fillFields();
        showPreview();
    });
    QObject::connect(field, &QComboBox::currentIndexChanged, &dialog, showPreview);
    QObject::connect(expression, &QLineEdit::textChanged, &dialog, showPreview);
    element->setCurrentIndex(std::min(1, element->count() - 1));
    fillFields();
    showPreview();
    auto* box = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    form->addRow(box);
    QObject::connect(box, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    QObject::connect(box, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    if (dialog.exec() != QDialog::Accepted) return;
    bind(field->currentData().toString(), expression->text().trimmed());
}

}  // namespace ui
