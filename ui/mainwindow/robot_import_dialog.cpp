#include "ui/mainwindow/robot_import_dialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>

#include "engine/import/robot_import.h"

namespace ui {
namespace {

const QString kFolders = QStringLiteral("robotImport/packagePath");
const QString kStrict = QStringLiteral("robotImport/strict");
const QString kFromGeometry = QStringLiteral("robotImport/inertiaFromGeometry");
const QString kFixedBase = QStringLiteral("robotImport/fixedBase");

}  // namespace

RobotImportDialog::RobotImportDialog(const QString& path, QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Import Robot"));
    setObjectName(QStringLiteral("RobotImportDialog"));
    auto* layout = new QVBoxLayout(this);

    std::string why;
    const auto format = engine::io::robotFormatOf(path.toStdString(), why);
    format_ =
        new QLabel(format ? tr("<b>%1</b> — %2 robot description")
                                .arg(QFileInfo(path).fileName().toHtmlEscaped(),
                                     QString::fromUtf8(engine::io::robotFormatName(*format).data()))
                          : QString::fromStdString(why).toHtmlEscaped());
    format_->setWordWrap(true);
    layout->addWidget(format_);

    auto* form = new QFormLayout;
    folders_ = new QListWidget;
    folders_->setObjectName(QStringLiteral("PackageFolders"));
    folders_->setToolTip(
        tr("Folders searched for package://NAME/… and model://NAME/… meshes: each is crawled for "
           "the package.xml that names NAME. Then ROS_PACKAGE_PATH, then the folders above the "
           "file."));
    folders_->setMaximumHeight(90);
    auto* add = new QPushButton(tr("Add Folder…"));
    auto* remove = new QPushButton(tr("Remove"));
    connect(add, &QPushButton::clicked, this, &RobotImportDialog::addFolder);
    connect(remove, &QPushButton::clicked, this, [this] { delete folders_->currentItem(); });
    auto* buttons = new QVBoxLayout;
    buttons->addWidget(add);
    buttons->addWidget(remove);
    buttons->addStretch();
    auto* folderRow = new QHBoxLayout;
    folderRow->addWidget(folders_, 1);
    folderRow->addLayout(buttons);
    form->addRow(tr("Package folders"), folderRow);
    auto* searched =
        new QLabel(tr("For package:// and model:// meshes; then ROS_PACKAGE_PATH, "
                      "then the folders above the file."));
    searched->setWordWrap(true);
    searched->setEnabled(false);  // drawn as a hint
    form->addRow(QString(), searched);

    strict_ = new QCheckBox(tr("Refuse inertia data that needs fixing (strict)"));
    strict_->setToolTip(
        tr("Off: a zero or negative mass, a zero principal moment or moments that violate the "
           "triangle inequality are fixed as MuJoCo's compiler does, with a warning per link "
           "saying what changed. On: they are errors."));
    fromGeometry_ = new QCheckBox(tr("Compute inertia from the collision geometry"));
    fromGeometry_->setToolTip(
        tr("Every link's centre of mass and inertia from its collision "
           "shapes (visual ones when it has none), keeping its mass."));
    fixedBase_ = new QCheckBox(tr("Weld the root link to the ground"));
    fixedBase_->setToolTip(
        tr("For a robot arm bolted down; otherwise the root floats unless it "
           "is the world."));
    form->addRow(QString(), strict_);
    form->addRow(QString(), fromGeometry_);
    form->addRow(QString(), fixedBase_);
    layout->addLayout(form);

    auto* box = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    box->button(QDialogButtonBox::Ok)->setText(tr("Import"));
    box->button(QDialogButtonBox::Ok)->setEnabled(format.has_value());
    connect(box, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(box, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(box);

    setOptions(remembered());
}

void RobotImportDialog::addFolder() {
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Package Folder"));
    if (!folder.isEmpty() && folders_->findItems(folder, Qt::MatchExactly).isEmpty())
        folders_->addItem(folder);
}

engine::io::RobotImportOptions RobotImportDialog::options() const {
    engine::io::RobotImportOptions out;
    for (int i = 0; i < folders_->count(); ++i)
        out.packagePath.push_back(folders_->item(i)->text().toStdString());
    out.strict = strict_->isChecked();
    out.inertiaFromGeometry = fromGeometry_->isChecked();
    out.fixedBase = fixedBase_->isChecked();
    return out;
}

void RobotImportDialog::setOptions(const engine::io::RobotImportOptions& options) {
    folders_->clear();
    for (const std::string& folder : options.packagePath)
        folders_->addItem(QString::fromStdString(folder));
    strict_->setChecked(options.strict);
    fromGeometry_->setChecked(options.inertiaFromGeometry);
    fixedBase_->setChecked(options.fixedBase);
}

void RobotImportDialog::remember() const {
    QSettings settings;
    const engine::io::RobotImportOptions o = options();
    QStringList folders;
    for (const std::string& folder : o.packagePath) folders << QString::fromStdString(folder);
    settings.setValue(kFolders, folders);
    settings.setValue(kStrict, o.strict);
    settings.setValue(kFromGeometry, o.inertiaFromGeometry);
    settings.setValue(kFixedBase, o.fixedBase);
}

engine::io::RobotImportOptions RobotImportDialog::remembered() {
    QSettings settings;
    engine::io::RobotImportOptions o;
    for (const QString& folder : settings.value(kFolders).toStringList())
        o.packagePath.push_back(folder.toStdString());
    o.strict = settings.value(kStrict, false).toBool();
    o.inertiaFromGeometry = settings.value(kFromGeometry, false).toBool();
    o.fixedBase = settings.value(kFixedBase, false).toBool();
    return o;
}

}  // namespace ui
