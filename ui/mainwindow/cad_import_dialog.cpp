#include "ui/mainwindow/cad_import_dialog.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QRadioButton>
#include <QSettings>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "engine/import/step_import.h"
#include "engine/model/scene_spec.h"
#include "ui/common/text.h"

namespace ui {
namespace {

const QString kGrouping = QStringLiteral("cadImport/perSolid");
const QString kRigid = QStringLiteral("cadImport/rigid");
const QString kDensity = QStringLiteral("cadImport/density");
const QString kTolerance = QStringLiteral("cadImport/toleranceMm");

struct Material {
    const char* name;
    double density;  // kg/m³
};
// Common engineering materials (handbook densities at room temperature).
constexpr Material kMaterials[] = {
    {QT_TRANSLATE_NOOP("ui::CadImportDialog", "Steel"), 7850.0},
    {QT_TRANSLATE_NOOP("ui::CadImportDialog", "Stainless steel"), 8000.0},
    {QT_TRANSLATE_NOOP("ui::CadImportDialog", "Cast iron"), 7200.0},
    {QT_TRANSLATE_NOOP("ui::CadImportDialog", "Aluminium"), 2700.0},
    {QT_TRANSLATE_NOOP("ui::CadImportDialog", "Titanium"), 4430.0},
    {QT_TRANSLATE_NOOP("ui::CadImportDialog", "Brass"), 8500.0},
    {QT_TRANSLATE_NOOP("ui::CadImportDialog", "ABS plastic"), 1040.0},
    {QT_TRANSLATE_NOOP("ui::CadImportDialog", "Nylon"), 1150.0},
    {QT_TRANSLATE_NOOP("ui::CadImportDialog", "Oak"), 750.0},
};

QString jointTypeText(engine::JointType type) {
    QString name = toQString(std::string(engine::jointTypeName(type)));
    if (!name.isEmpty()) name[0] = name[0].toUpper();
    return name;
}

// The part a user most likely fixes: one named as a machine's frame, else the heaviest.
std::optional<std::string> likelyGround(const engine::SceneSpec& spec) {
    for (const char* word : {"ground", "frame", "base", "chassis", "housing", "fixed", "bench"})
        for (const engine::Part& part : spec.parts)
            if (!part.ground && QString::fromStdString(part.name).contains(QLatin1String(word),
                                                                           Qt::CaseInsensitive))
                return part.name;
    const engine::Part* heaviest = nullptr;
    for (const engine::Part& part : spec.parts)
        if (!part.ground && (!heaviest || part.mass > heaviest->mass)) heaviest = &part;
    if (heaviest) return heaviest->name;
    return std::nullopt;
}

}  // namespace

CadImportDialog::CadImportDialog(const QString& path, const engine::SceneSpec* openScene,
                                 QWidget* parent)
    : QDialog(parent) {
    setWindowTitle(tr("Import CAD"));
    setObjectName(QStringLiteral("CadImportDialog"));
    auto* layout = new QVBoxLayout(this);
    const QFileInfo file(path);
    auto* heading = new QLabel(
        tr("<b>%1</b> — STEP assembly, %2")
            .arg(file.fileName().toHtmlEscaped(), QLocale().formattedDataSize(file.size())));
    heading->setWordWrap(true);
    layout->addWidget(heading);

    auto* form = new QFormLayout;
    grouping_ = new QComboBox;
    grouping_->setObjectName(QStringLiteral("CadGrouping"));
    grouping_->addItem(tr("One per component"));
    grouping_->addItem(tr("One per solid"));
    grouping_->setToolTip(
        tr("A component (a leaf of the assembly tree) is one rigid part with all its solids; or "
           "each solid is a part of its own."));
    form->addRow(tr("Parts"), grouping_);
    rigid_ = new QLineEdit;
    rigid_->setObjectName(QStringLiteral("CadRigid"));
    rigid_->setPlaceholderText(tr("sub-assemblies by name, separated by commas"));
    rigid_->setToolTip(
        tr("Sub-assemblies that move as one: each becomes one part, its mass properties those "
           "of all its solids together."));
    form->addRow(tr("Keep rigid"), rigid_);

    material_ = new QComboBox;
    material_->setObjectName(QStringLiteral("CadMaterial"));
    for (const Material& m : kMaterials) material_->addItem(tr(m.name), m.density);
    material_->addItem(tr("Other"), 0.0);
    density_ = new QDoubleSpinBox;
    density_->setObjectName(QStringLiteral("CadDensity"));
    density_->setRange(1.0, 30000.0);
    density_->setDecimals(1);
    density_->setSuffix(QStringLiteral(" kg/m³"));
    density_->setToolTip(
        tr("For solids whose file names no material density (a material's density in the file "
           "is used where there is one)."));
    auto* densityRow = new QHBoxLayout;
    densityRow->addWidget(material_, 1);
    densityRow->addWidget(density_);
    form->addRow(tr("Default material"), densityRow);
    connect(material_, &QComboBox::activated, this, [this](int index) {
        if (const double d = material_->itemData(index).toDouble(); d > 0.0) density_->setValue(d);
    });
    connect(density_, &QDoubleSpinBox::valueChanged, this, &CadImportDialog::densityEdited);

    tolerance_ = new QDoubleSpinBox;
    tolerance_->setObjectName(QStringLiteral("CadTolerance"));
    tolerance_->setRange(0.0, 100.0);
    tolerance_->setDecimals(3);
    tolerance_->setSingleStep(0.01);
    tolerance_->setSuffix(QStringLiteral(" mm"));
    tolerance_->setSpecialValueText(tr("Automatic (0.2 % of each part's size)"));
    tolerance_->setToolTip(
        tr("How far the drawing's triangles may stray from the true surfaces. Mass properties "
           "are exact whatever it is."));
    form->addRow(tr("Drawing tolerance"), tolerance_);
    layout->addLayout(form);

    // Where the parts go.
    targets_ = new QButtonGroup(this);
    auto* newScene = new QRadioButton(tr("A new scene"));
    auto* add = new QRadioButton(tr("The open scene, as new parts"));
    auto* update =
        new QRadioButton(tr("The open scene, updating its parts of the same names (re-import)"));
    newScene->setObjectName(QStringLiteral("CadTargetNew"));
    add->setObjectName(QStringLiteral("CadTargetAdd"));
    update->setObjectName(QStringLiteral("CadTargetUpdate"));
    update->setToolTip(
        tr("For a file that changed since it was imported: the parts named as its components "
           "take its geometry, mass and placement; joints that still fit are kept, those whose "
           "pins moved follow them, the others are removed (Messages lists each)."));
    targets_->addButton(newScene, static_cast<int>(CadTarget::NewScene));
    targets_->addButton(add, static_cast<int>(CadTarget::AddToScene));
    targets_->addButton(update, static_cast<int>(CadTarget::UpdateScene));
    auto* into = new QVBoxLayout;
    into->addWidget(newScene);
    into->addWidget(add);
    into->addWidget(update);
    auto* intoForm = new QFormLayout;
    intoForm->addRow(tr("Into"), into);
    layout->addLayout(intoForm);
    add->setEnabled(openScene != nullptr);
    update->setEnabled(openScene != nullptr);
    // A scene this file was imported into: most likely it is read again.
    const bool fromThisFile = openScene && openScene->description.find(
                                               file.fileName().toStdString()) != std::string::npos;
    setTarget(fromThisFile ? CadTarget::UpdateScene : CadTarget::NewScene);

    auto* box = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    box->button(QDialogButtonBox::Ok)->setText(tr("Import"));
    connect(box, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(box, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(box);

    setOptions(remembered());
}

void CadImportDialog::densityEdited() {
    const double d = density_->value();
    for (int k = 0; k < material_->count(); ++k)
        if (std::abs(material_->itemData(k).toDouble() - d) < 0.05) {
            material_->setCurrentIndex(k);
            return;
        }
    material_->setCurrentIndex(material_->count() - 1);  // "Other"
}

engine::io::CadImportOptions CadImportDialog::options() const {
    engine::io::CadImportOptions out;
    out.grouping = grouping_->currentIndex() == 1 ? engine::io::CadGrouping::Solid
                                                  : engine::io::CadGrouping::Component;
    for (const QString& name : rigid_->text().split(QLatin1Char(','), Qt::SkipEmptyParts))
        if (!name.trimmed().isEmpty()) out.rigidAssemblies.push_back(name.trimmed().toStdString());
    out.defaultDensity = density_->value();
    out.linearDeflection = tolerance_->value() * 1e-3;
    return out;
}

void CadImportDialog::setOptions(const engine::io::CadImportOptions& options) {
    grouping_->setCurrentIndex(options.grouping == engine::io::CadGrouping::Solid ? 1 : 0);
    QStringList rigid;
    for (const std::string& name : options.rigidAssemblies) rigid << QString::fromStdString(name);
    rigid_->setText(rigid.join(QStringLiteral(", ")));
    density_->setValue(options.defaultDensity);
    densityEdited();
    tolerance_->setValue(options.linearDeflection * 1e3);
}

CadTarget CadImportDialog::target() const {
    return static_cast<CadTarget>(targets_->checkedId());
}

void CadImportDialog::setTarget(CadTarget target) {
    if (QAbstractButton* button = targets_->button(static_cast<int>(target));
        button && button->isEnabled())
        button->setChecked(true);
    else
        targets_->button(static_cast<int>(CadTarget::NewScene))->setChecked(true);
}

void CadImportDialog::remember() const {
    QSettings settings;
    const engine::io::CadImportOptions o = options();
    settings.setValue(kGrouping, o.grouping == engine::io::CadGrouping::Solid);
    settings.setValue(kRigid, rigid_->text());
    settings.setValue(kDensity, o.defaultDensity);
    settings.setValue(kTolerance, tolerance_->value());
}

engine::io::CadImportOptions CadImportDialog::remembered() {
    QSettings settings;
    engine::io::CadImportOptions o;
    o.grouping = settings.value(kGrouping, false).toBool() ? engine::io::CadGrouping::Solid
                                                           : engine::io::CadGrouping::Component;
    for (const QString& name :
         settings.value(kRigid).toString().split(QLatin1Char(','), Qt::SkipEmptyParts))
        if (!name.trimmed().isEmpty()) o.rigidAssemblies.push_back(name.trimmed().toStdString());
    const double density = settings.value(kDensity, o.defaultDensity).toDouble();
    if (density > 0.0 && std::isfinite(density)) o.defaultDensity = density;
    const double tolerance = settings.value(kTolerance, 0.0).toDouble();
    if (tolerance >= 0.0 && std::isfinite(tolerance)) o.linearDeflection = tolerance * 1e-3;
    return o;
}

CadJointsDialog::CadJointsDialog(const engine::SceneSpec& spec,
                                 const std::vector<engine::io::JointSuggestion>& suggestions,
                                 bool chooseGround, const QString& summary, QWidget* parent)
    : QDialog(parent) {
    setWindowTitle(tr("Joints from the Geometry"));
    setObjectName(QStringLiteral("CadJointsDialog"));
    resize(760, 420);
    auto* layout = new QVBoxLayout(this);
    auto* heading = new QLabel(summary);
    heading->setWordWrap(true);
    layout->addWidget(heading);

    if (chooseGround) {
        ground_ = new QComboBox;
        ground_->setObjectName(QStringLiteral("CadGround"));
        ground_->addItem(tr("None: every part moves"));
        for (const engine::Part& part : spec.parts)
            if (!part.ground) ground_->addItem(toQString(part.name), toQString(part.name));
        ground_->setToolTip(
            tr("The component that stays fixed (the machine's frame, a base plate): it becomes "
               "the ground part, and the joints to it hold the mechanism in place."));
        auto* form = new QFormLayout;
        form->addRow(tr("Ground"), ground_);
        layout->addLayout(form);
        setGround(likelyGround(spec));
    }

    table_ = new QTableWidget(static_cast<int>(suggestions.size()), 3);
    table_->setObjectName(QStringLiteral("CadSuggestions"));
    table_->setHorizontalHeaderLabels({tr("Joint"), tr("Between"), tr("Why")});
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->verticalHeader()->hide();
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setWordWrap(true);
    for (std::size_t k = 0; k < suggestions.size(); ++k) {
        const engine::io::JointSuggestion& s = suggestions[k];
        const int row = static_cast<int>(k);
        auto* type = new QTableWidgetItem(jointTypeText(s.type));
        type->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsUserCheckable);
        type->setCheckState(Qt::Checked);
        table_->setItem(row, 0, type);
        table_->setItem(
            row, 1,
            new QTableWidgetItem(QStringLiteral("%1 – %2").arg(
                toQString(spec.parts.at(s.partI).name), toQString(spec.parts.at(s.partJ).name))));
        auto* why = new QTableWidgetItem(toQString(s.reason));
        why->setToolTip(toQString(s.reason));
        table_->setItem(row, 2, why);
    }
    table_->resizeColumnsToContents();
    table_->resizeRowsToContents();
    layout->addWidget(table_, 1);
    connect(table_, &QTableWidget::itemChanged, this, &CadJointsDialog::updateButton);

    auto* box = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    ok_ = box->button(QDialogButtonBox::Ok);
    box->button(QDialogButtonBox::Cancel)->setText(tr("Cancel Import"));
    auto* all = box->addButton(tr("Tick All"), QDialogButtonBox::ResetRole);
    auto* none = box->addButton(tr("Tick None"), QDialogButtonBox::ResetRole);
    connect(all, &QPushButton::clicked, this, [this] {
        for (int r = 0; r < table_->rowCount(); ++r) table_->item(r, 0)->setCheckState(Qt::Checked);
    });
    connect(none, &QPushButton::clicked, this, [this] {
        for (int r = 0; r < table_->rowCount(); ++r)
            table_->item(r, 0)->setCheckState(Qt::Unchecked);
    });
    all->setEnabled(!suggestions.empty());
    none->setEnabled(!suggestions.empty());
    connect(box, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(box, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(box);
    updateButton();
}

std::vector<std::size_t> CadJointsDialog::accepted() const {
    std::vector<std::size_t> out;
    for (int r = 0; r < table_->rowCount(); ++r)
        if (table_->item(r, 0)->checkState() == Qt::Checked)
            out.push_back(static_cast<std::size_t>(r));
    return out;
}

void CadJointsDialog::setAccepted(const std::vector<std::size_t>& indices) {
    for (int r = 0; r < table_->rowCount(); ++r)
        table_->item(r, 0)->setCheckState(
            std::count(indices.begin(), indices.end(), static_cast<std::size_t>(r))
                ? Qt::Checked
                : Qt::Unchecked);
}

std::optional<std::string> CadJointsDialog::ground() const {
    if (!ground_ || ground_->currentIndex() <= 0) return std::nullopt;
    return ground_->currentData().toString().toStdString();
}

void CadJointsDialog::setGround(const std::optional<std::string>& name) {
    if (!ground_) return;
    const int index = name ? ground_->findData(toQString(*name)) : 0;
    ground_->setCurrentIndex(std::max(0, index));
}

void CadJointsDialog::updateButton() {
    const std::size_t n = accepted().size();
    ok_->setText(n == 0   ? tr("Import Without Joints")
                 : n == 1 ? tr("Import With 1 Joint")
                          : tr("Import With %1 Joints").arg(n));
}

}  // namespace ui
