#pragma once
// A table's points read from a CSV file as a spreadsheet or a data sheet's digitiser writes it:
// the first two columns are x and y. Separators: ',' ';' or tabs (spaces where there is none of
// them); with ';' or tabs a decimal comma is read as a point ("0,5;120,3"). Lines before the
// first row of numbers are a header (the columns' names are kept); blank lines and lines
// starting with '#' are skipped. Points listed with x falling are turned round.

#include <string>
#include <string_view>
#include <vector>

namespace engine::io {

struct TableColumns {
    std::vector<double> x, y;
    std::string xName, yName;  // from the header, when there is one
    int extraColumns = 0;      // columns beyond the first two (left out)
};

// Reads `text`; false with the reason in `error` ("line 7: 'n/a' is not a number", "only 1
// row of numbers: a table needs 2") when it holds no table.
bool readTableColumns(std::string_view text, TableColumns& out, std::string& error);

}  // namespace engine::io
