# Sourced at the top of every tool script: `SCRIPT -h` or `SCRIPT --help`
# prints the script's opening comment (its usage) and exits 0 before the
# script does anything else. Run alone, it answers for itself.
case ${1-} in
  -h|--help)
    sed -n '1,/^[^#]/{/^#!/d;/^#/s/^# \{0,1\}//p}' "$0"
    exit 0 ;;
esac
