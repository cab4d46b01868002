// A fixture for the format check (tools/check_format.sh): not laid out as .clang-format says.
int  twice( int x ){return 2*x;}
