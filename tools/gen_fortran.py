#!/usr/bin/env python3
"""Generates the Fortran entry points (mpif.h / `use mpi`, and the `use mpi_f08`
routines that do not reach the C entry points) from src/interpose/c_calls.def,
the one table of intercepted calls. Each C parameter maps to its Fortran form
by type and name: handles are converted with the f2c/c2f functions (message
handles with the library's own table), buffers get the Fortran MPI_IN_PLACE /
MPI_BOTTOM sentinels translated, statuses honour MPI_STATUS(ES)_IGNORE,
indices become 1-based, and the error code goes to the trailing ierror.

usage: gen_fortran.py c_calls.def out.cpp
"""
import re
import sys

HANDLES = {"MPI_Datatype": "Type", "MPI_Comm": "Comm", "MPI_Op": "Op", "MPI_Info": "Info",
           "MPI_Group": "Group", "MPI_Request": "Request"}
# Matched probes only produce a message handle; the matched receives read it.
MESSAGE_OUT = {"Mprobe", "Improbe"}


def parse(path):
    text = open(path).read()
    text = re.sub(r"//[^\n]*", "", text)
    calls = []
    for m in re.finditer(r"ADACOMP_C_CALL\((\w+),\s*(\w+),\s*\((.*?)\),\s*\((.*?)\)\)", text, re.S):
        name, impl, params, _ = m.groups()
        plist = [] if params.strip() in ("", "void") else [p.strip() for p in params.split(",")]
        calls.append((name, impl, plist))
    return calls


def split_param(p):
    m = re.match(r"(const\s+)?([\w\s\*]+?)\s*(\**)\s*(\w+)(\[\])?$", " ".join(p.split()))
    const, base, stars, pname, arr = m.groups()
    base = base.strip()
    stars = (stars or "") + ("*" * base.count("*"))
    base = base.replace("*", "").strip()
    return base, stars, pname, bool(arr), bool(const)


def gen_call(name, impl, params):
    fparams, pre, args, post = [], [], [], []
    count_name = next((split_param(p)[2] for p in params
                       if split_param(p)[2] in ("count", "incount")), None)
    for p in params:
        base, stars, pn, arr, const = split_param(p)
        if base == "void" and stars == "*":
            fparams.append(f"void* {pn}")
            args.append(f"fbuf({pn})")
        elif base == "int" and not stars and not arr:
            fparams.append(f"MPI_Fint* {pn}")
            args.append(f"*{pn}")
        elif base == "int" and stars == "*" and pn in ("flag", "outcount", "provided", "index"):
            fparams.append(f"MPI_Fint* {pn}")
            pre.append(f"int c_{pn} = 0;")
            args.append(f"&c_{pn}")
            if pn == "index":
                post.append(f"*{pn} = c_{pn} == MPI_UNDEFINED ? MPI_UNDEFINED : c_{pn} + 1;")
            else:
                post.append(f"*{pn} = c_{pn};")
        elif base == "int" and arr:
            fparams.append(f"MPI_Fint* {pn}")
            if pn == "indices":
                args.append(pn)
                post.append(f"if (c_outcount != MPI_UNDEFINED) for (int i = 0; i < c_outcount; ++i) ++{pn}[i];")
            else:
                args.append(f"reinterpret_cast<{'const ' if const else ''}int*>({pn})")
        elif base in HANDLES and not stars and not arr:
            fparams.append(f"MPI_Fint* {pn}")
            args.append(f"PMPI_{HANDLES[base]}_f2c(*{pn})")
        elif base == "MPI_Comm" and stars == "*":
            fparams.append(f"MPI_Fint* {pn}")
            pre.append(f"MPI_Comm c_{pn} = MPI_COMM_NULL;")
            args.append(f"&c_{pn}")
            post.append(f"if (rc == MPI_SUCCESS) *{pn} = PMPI_Comm_c2f(c_{pn});")
        elif base == "MPI_Request" and stars == "*":
            fparams.append(f"MPI_Fint* {pn}")
            pre.append(f"MPI_Request c_{pn} = PMPI_Request_f2c(*{pn});")
            args.append(f"&c_{pn}")
            post.append(f"*{pn} = PMPI_Request_c2f(c_{pn});")
        elif base == "MPI_Request" and arr:
            fparams.append(f"MPI_Fint* {pn}")
            pre.append(f"std::vector<MPI_Request> c_{pn}(*{count_name} > 0 ? *{count_name} : 0);")
            pre.append(f"for (int i = 0; i < *{count_name}; ++i) c_{pn}[i] = PMPI_Request_f2c({pn}[i]);")
            args.append(f"c_{pn}.data()")
            post.append(f"for (int i = 0; i < *{count_name}; ++i) {pn}[i] = PMPI_Request_c2f(c_{pn}[i]);")
        elif base == "MPI_Message" and stars == "*":
            fparams.append(f"MPI_Fint* {pn}")
            init = "MPI_MESSAGE_NULL" if name in MESSAGE_OUT else f"adacomp::message_f2c(*{pn})"
            pre.append(f"MPI_Message c_{pn} = {init};")
            args.append(f"&c_{pn}")
            post.append(f"*{pn} = adacomp::message_c2f(c_{pn});")
        elif base == "MPI_Status" and stars == "*":
            fparams.append(f"MPI_Fint* {pn}")
            pre.append(f"MPI_Status c_{pn};")
            pre.append(f"const bool ign_{pn} = fstatus_ignored({pn});")
            args.append(f"ign_{pn} ? MPI_STATUS_IGNORE : &c_{pn}")
            post.append(f"if (!ign_{pn}) PMPI_Status_c2f(&c_{pn}, {pn});")
        elif base == "MPI_Status" and arr:
            fparams.append(f"MPI_Fint* {pn}")
            n = "c_outcount" if name in ("Waitsome", "Testsome") else f"*{count_name}"
            pre.append(f"const bool ign_{pn} = fstatuses_ignored({pn});")
            pre.append(f"std::vector<MPI_Status> c_{pn}(ign_{pn} ? 0 : (*{count_name} > 0 ? *{count_name} : 0));")
            args.append(f"ign_{pn} ? MPI_STATUSES_IGNORE : c_{pn}.data()")
            guard = "c_outcount != MPI_UNDEFINED && " if n == "c_outcount" else ""
            flag = "c_flag && " if name == "Testall" else ""
            post.append(f"if (!ign_{pn} && {guard}{flag}true) for (int i = 0; i < {n}; ++i) "
                        f"PMPI_Status_c2f(&c_{pn}[i], {pn} + i * MPI_F_STATUS_SIZE);")
        else:
            raise SystemExit(f"gen_fortran: no Fortran mapping for '{p}' in {name}")
    fparams.append("MPI_Fint* ierr")
    body = ["  " + l for l in pre]
    call_args = ", ".join(args)
    body.append(f"  int rc = adacomp::finish(adacomp::{impl}({call_args}), "
                f"[&] {{ return PMPI_{name}({call_args}); }});")
    body += ["  " + l for l in post]
    body.append("  if (ierr) *ierr = rc;")
    lname = name.lower()
    out = [f'extern "C" void adacomp_f_{lname}({", ".join(fparams)}) {{'] + body + ["}"]
    names = [f"mpi_{lname}_", f"mpi_{lname}__", f"mpi_{lname}", f"MPI_{name.upper()}"]
    for n in names:
        out.append(f'extern "C" ADACOMP_FEXPORT void {n}({", ".join(fparams)}) '
                   f'__attribute__((alias("adacomp_f_{lname}")));')
    # use mpi_f08: Open MPI's routines are mpi_<name>_f08_ and call PMPI. MPICH's
    # with a buffer are mpi_<name>_f08ts_ (array descriptors) and call the C
    # MPI_<Name>, which the C entries catch; its others are mpi_<name>_f08_
    # calling PMPI, so they need ours.
    has_buffer = any(split_param(p)[:2] == ("void", "*") for p in params)
    out.append("#ifdef OPEN_MPI" if has_buffer else "#if defined(OPEN_MPI) || defined(MPICH)")
    out.append(f'extern "C" ADACOMP_FEXPORT void mpi_{lname}_f08_({", ".join(fparams)}) '
               f'__attribute__((alias("adacomp_f_{lname}")));')
    out.append("#endif")
    return "\n".join(out)


def main():
    calls = parse(sys.argv[1])
    parts = ['// Generated by tools/gen_fortran.py from src/interpose/c_calls.def. Do not edit.',
             '#include "interpose/fortran.h"', '']
    for name, impl, params in calls:
        if name in ("Init", "Init_thread", "Finalize"):
            continue  # hand-written in fortran_support.cpp (argc/argv, MPICH setup)
        parts.append(gen_call(name, impl, params))
        parts.append("")
    open(sys.argv[2], "w").write("\n".join(parts))


main()
