"""Tests of selbayes.datasets._files: the readers of the user's own files (an expression table
with a label column, AnnData, and the two-file layout X and labels that the command line reads).
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from selbayes.datasets import _files as datasets
from selbayes.datasets import read_anndata, read_table


# ---------------------------------------------------------------------------------------------
# read_table
# ---------------------------------------------------------------------------------------------
def _frame(n=8, p=4, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(rng.normal(size=(n, p)), columns=[f"gene{j}" for j in range(p)])
    df.insert(0, "tissue", ["tumour", "normal"] * (n // 2))
    df.insert(0, "sample", [f"s{i}" for i in range(n)])
    return df


@pytest.mark.parametrize("suffix, sep", [(".csv", ","), (".tsv", "\t"), (".csv.gz", ","),
                                         (".txt", ";")])
def test_read_table_round_trip(tmp_path, suffix, sep):
    df = _frame()
    path = tmp_path / f"expr{suffix}"
    df.to_csv(path, sep=sep, index=False)
    ds = read_table(path, label_column="tissue", index_column="sample")
    assert list(ds.X.columns) == ["gene0", "gene1", "gene2", "gene3"]
    assert list(ds.X.index) == df["sample"].tolist()
    np.testing.assert_allclose(ds.X.to_numpy(), df.iloc[:, 2:].to_numpy(), rtol=1e-15)
    assert ds.y.tolist() == df["tissue"].tolist()
    assert ds.X.dtypes.eq(np.float64).all()


def test_read_table_duplicated_genes(tmp_path):
    path = tmp_path / "dup.csv"
    path.write_text("tissue,TP53,BRCA1,TP53\na,1,2,3\nb,4,5,6\na,1,2,3\nb,1,1,1\n")
    with pytest.raises(ValueError, match="duplicated gene name.*'TP53'"):
        read_table(path, label_column="tissue")


def test_read_table_non_numeric(tmp_path):
    df = _frame()
    df["annotation"] = "x"
    df.to_csv(tmp_path / "t.csv", index=False)
    with pytest.raises(TypeError, match="non-numeric gene column.*'annotation'"):
        read_table(tmp_path / "t.csv", label_column="tissue", index_column="sample")
    df = df.drop(columns="annotation").rename(columns={"sample": "patient"})
    df.to_csv(tmp_path / "t.csv", index=False)
    with pytest.raises(TypeError, match="'patient'.*looks like sample ids: give "
                                        "index_column='patient'"):      # forgot index_column
        read_table(tmp_path / "t.csv", label_column="tissue")


@pytest.mark.parametrize("written_by", ["pandas", "named"])
def test_read_table_finds_a_first_column_of_sample_ids(tmp_path, written_by):
    # pandas' to_csv over an index writes an empty header; a column named "sample" with
    # numeric ids would otherwise be read as a gene, silently
    df = _frame().set_index("sample")
    df.index = [str(100 + i) for i in range(len(df))]                  # numbers as ids
    path = tmp_path / "t.csv"
    if written_by == "pandas":
        df.to_csv(path)
    else:
        df.rename_axis("sample").reset_index().to_csv(path, index=False)
    ds = read_table(path, label_column="tissue")
    assert list(ds.X.columns) == ["gene0", "gene1", "gene2", "gene3"]
    assert list(ds.X.index) == [str(100 + i) for i in range(len(df))]
    assert ds.y.tolist() == df["tissue"].tolist()


def test_read_matrix_numbered_patients_are_ids_not_a_gene(tmp_path):
    """A first column named as an identifier ("patient_id", "Case No") holding distinct whole
    numbers is sample ids: read as a gene it would track the file's order (often the class
    order), a silent leak. A gene symbol that is one word (ID1) or values that are not
    distinct whole numbers stay a gene."""
    from selbayes.datasets import read_matrix

    rng = np.random.default_rng(0)
    genes = pd.DataFrame(rng.normal(size=(6, 2)), columns=["g1", "g2"])
    for header in ("patient_id", "Case No", "subject"):
        genes.assign(**{header: np.arange(101, 107)})[[header, "g1", "g2"]].to_csv(
            tmp_path / "X.csv", index=False)
        X = read_matrix(tmp_path / "X.csv")
        assert list(X.columns) == ["g1", "g2"] and list(X.index) == [str(i) for i in
                                                                       range(101, 107)]
    for header, values in (("ID1", np.arange(101, 107)),                # a gene symbol
                           ("patient_score", np.linspace(0, 1, 6)),     # not whole numbers
                           ("case", np.array([1, 1, 2, 2, 3, 3]))):     # not distinct
        genes.assign(**{header: values})[[header, "g1", "g2"]].to_csv(
            tmp_path / "X.csv", index=False)
        assert list(read_matrix(tmp_path / "X.csv").columns) == [header, "g1", "g2"]


def test_read_table_missing_values(tmp_path):
    df = _frame(n=10)
    df.loc[2, "gene1"] = np.nan
    df.loc[7, "gene3"] = np.nan
    path = tmp_path / "m.csv"
    df.to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"2 missing expression value.*'gene1', 'gene3'"):
        read_table(path, label_column="tissue", index_column="sample")
    with pytest.warns(UserWarning, match="dropped 2 genes"):
        ds = read_table(path, label_column="tissue", index_column="sample",
                        drop_missing="genes")
    assert ds.dropped == {"genes": ["gene1", "gene3"], "samples": []}
    assert list(ds.X.columns) == ["gene0", "gene2"]
    with pytest.warns(UserWarning, match="dropped 2 samples"):
        ds = read_table(path, label_column="tissue", index_column="sample",
                        drop_missing="samples")
    assert ds.dropped == {"genes": [], "samples": ["s2", "s7"]} and ds.n_samples == 8
    with pytest.raises(ValueError, match="drop_missing"):
        read_table(path, label_column="tissue", drop_missing="rows")


def test_read_table_missing_labels(tmp_path):
    df = _frame(n=10)
    df.loc[3, "tissue"] = np.nan
    path = tmp_path / "l.csv"
    df.to_csv(path, index=False)
    with pytest.raises(ValueError, match="1 missing label.*'s3'"):
        read_table(path, label_column="tissue", index_column="sample")
    with pytest.raises(ValueError, match="missing label"):
        read_table(path, label_column="tissue", index_column="sample", drop_missing="genes")
    with pytest.warns(UserWarning):
        ds = read_table(path, label_column="tissue", index_column="sample",
                        drop_missing="samples")
    assert ds.dropped["samples"] == ["s3"]


def test_read_table_label_problems(tmp_path):
    df = _frame(n=8)
    df.loc[7, "tissue"] = "rare"
    df.to_csv(tmp_path / "a.csv", index=False)
    with pytest.raises(ValueError, match="single sample: 'rare'"):
        read_table(tmp_path / "a.csv", label_column="tissue", index_column="sample")
    df["tissue"] = "tumour"
    df.to_csv(tmp_path / "b.csv", index=False)
    with pytest.raises(ValueError, match="at least 2"):
        read_table(tmp_path / "b.csv", label_column="tissue", index_column="sample")
    with pytest.raises(ValueError, match="label_column='class' is not a column"):
        read_table(tmp_path / "b.csv", label_column="class")
    with pytest.raises(FileNotFoundError):
        read_table(tmp_path / "absent.csv", label_column="tissue")


def test_read_table_infinite(tmp_path):
    df = _frame()
    df.loc[1, "gene2"] = np.inf
    df.to_csv(tmp_path / "i.csv", index=False)
    with pytest.raises(ValueError, match="infinite.*'s1'.*'gene2'"):
        read_table(tmp_path / "i.csv", label_column="tissue", index_column="sample")


# ---------------------------------------------------------------------------------------------
# read_anndata
# ---------------------------------------------------------------------------------------------
def test_read_anndata_needs_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "anndata", None)  # import anndata -> ImportError
    with pytest.raises(ImportError, match=r"selbayes\[anndata\]"):
        read_anndata(tmp_path / "x.h5ad", label_key="cell_type")


def test_read_anndata_round_trip(tmp_path):
    anndata = pytest.importorskip("anndata")
    import scipy.sparse as sp

    df = _frame(n=6)
    X = df.iloc[:, 2:].to_numpy()
    obs = pd.DataFrame({"tissue": pd.Categorical(df["tissue"])},
                       index=df["sample"].tolist())
    var = pd.DataFrame(index=list(df.columns[2:]))
    adata = anndata.AnnData(X=sp.csr_matrix(X), obs=obs, var=var)
    adata.layers["raw"] = X * 2
    adata.write_h5ad(tmp_path / "a.h5ad")
    ds = read_anndata(tmp_path / "a.h5ad", label_key="tissue")
    np.testing.assert_allclose(ds.X.to_numpy(), X)
    assert list(ds.X.columns) == list(df.columns[2:]) and list(ds.X.index) == df["sample"].tolist()
    assert ds.y.tolist() == df["tissue"].tolist()
    np.testing.assert_allclose(read_anndata(tmp_path / "a.h5ad", label_key="tissue",
                                            layer="raw").X.to_numpy(), 2 * X)
    with pytest.raises(ValueError, match="label_key='cell_type'"):
        read_anndata(tmp_path / "a.h5ad", label_key="cell_type")
    Xn = X.copy()
    Xn[0, 0] = np.nan
    anndata.AnnData(X=Xn, obs=obs, var=var).write_h5ad(tmp_path / "n.h5ad")
    with pytest.raises(ValueError, match="missing expression"):
        read_anndata(tmp_path / "n.h5ad", label_key="tissue")


def _adata(sparse: bool):
    anndata = pytest.importorskip("anndata")
    import scipy.sparse as sp

    rng = np.random.default_rng(5)
    X = rng.poisson(0.3, size=(8, 12)).astype(np.float64)
    obs = pd.DataFrame({"cell_type": pd.Categorical(list("aabbaabb"))},
                       index=[f"c{i}" for i in range(8)])
    var = pd.DataFrame(index=[f"gene{j}" for j in range(12)])
    adata = anndata.AnnData(X=sp.csr_matrix(X) if sparse else X, obs=obs, var=var)
    adata.layers["log"] = sp.csr_matrix(np.log1p(X)) if sparse else np.log1p(X)
    return adata, X


@pytest.mark.parametrize("sparse", [False, True])
def test_read_anndata_in_memory_object(sparse):
    adata, X = _adata(sparse)
    ds = read_anndata(adata, label_key="cell_type")
    np.testing.assert_array_equal(ds.X.to_numpy(), X)
    assert ds.y.tolist() == list("aabbaabb") and list(ds.X.index)[0] == "c0"
    ds = read_anndata(adata, label_key="cell_type", layer="log")
    np.testing.assert_allclose(ds.X.to_numpy(), np.log1p(X))


def test_read_anndata_sparse_stays_sparse_and_genes_subset():
    import scipy.sparse as sp

    adata, X = _adata(sparse=True)
    ds = read_anndata(adata, label_key="cell_type", dense=False)
    assert all(isinstance(d, pd.SparseDtype) for d in ds.X.dtypes)
    coo = ds.X.sparse.to_coo()
    assert sp.issparse(coo)
    np.testing.assert_array_equal(coo.toarray(), X)
    sub = read_anndata(adata, label_key="cell_type", genes=["gene3", "gene1"])
    assert list(sub.X.columns) == ["gene3", "gene1"]
    np.testing.assert_array_equal(sub.X.to_numpy(), X[:, [3, 1]])
    with pytest.raises(ValueError, match="gene99"):
        read_anndata(adata, label_key="cell_type", genes=["gene99"])


@pytest.mark.parametrize("sparse", [False, True])
def test_read_anndata_genes_among_repeated_symbols(sparse):
    """Repeated gene symbols (common in scanpy's files): genes= that names only symbols that
    occur once reads them (it raised pandas' InvalidIndexError, not a ValueError); a
    repeated one asked for, or none asked for, is refused with AnnData's own fix."""
    adata, X = _adata(sparse=sparse)
    names = list(adata.var_names)
    names[0] = names[2] = "dup"
    adata.var_names = names
    sub = read_anndata(adata, label_key="cell_type", genes=[names[3], names[1]])
    np.testing.assert_array_equal(sub.X.to_numpy(), X[:, [3, 1]])
    with pytest.raises(ValueError, match=r"gene\(s\) 'dup' occur more than once in var_names.*"
                                         r"adata.var_names_make_unique\(\)"):
        read_anndata(adata, label_key="cell_type", genes=["dup"])
    with pytest.raises(ValueError, match=r"1 duplicated gene name\(s\): 'dup'.*"
                                         r"adata.var_names_make_unique\(\)"):
        read_anndata(adata, label_key="cell_type")
    # every symbol repeated, and one asked for that is not there (an IndexError)
    adata.var_names = [f"g{j // 2}" for j in range(adata.n_vars)]
    with pytest.raises(ValueError, match=r"1 gene\(s\) not in var_names: 'absent'"):
        read_anndata(adata, label_key="cell_type", genes=["absent"])


def test_read_anndata_names_repeated_obs_names_with_anndatas_fix():
    """Repeated cell ids (common after concatenating batches) are refused naming obs_names
    and adata.obs_names_make_unique(), not "X's index"."""
    adata, _ = _adata(sparse=False)
    names = list(adata.obs_names)
    names[1] = names[0]
    adata.obs_names = names
    with pytest.raises(ValueError, match=rf"1 duplicated sample id\(s\) in obs_names "
                                         rf"\('{names[0]}'\).*adata.obs_names_make_unique"):
        read_anndata(adata, label_key="cell_type")


def test_read_anndata_messages():
    adata, _ = _adata(sparse=False)
    with pytest.raises(ValueError, match="layers are 'log'") as info:
        read_anndata(adata, label_key="cell_type", layer="counts")
    assert "None" not in str(info.value)
    with pytest.raises(TypeError, match="AnnData or a path"):
        read_anndata(42, label_key="cell_type")


# ------------------------------------------------------------------------------ read_xy
def _xy_files(tmp_path, *, x_ids=True):
    X = pd.DataFrame(np.arange(12.0).reshape(4, 3), columns=["g1", "g2", "g3"],
                     index=pd.Index(["s1", "s2", "s3", "s4"], name="sample"))
    X.to_csv(tmp_path / "X.csv", index=x_ids)
    return X


def test_read_xy_aligns_labels_by_sample_id(tmp_path):
    from selbayes.datasets import read_xy

    X = _xy_files(tmp_path)
    pd.DataFrame({"id": ["s3", "s1", "s4", "s2"], "label": ["b", "a", "b", "a"]}).to_csv(
        tmp_path / "y.csv", index=False)
    ds = read_xy(tmp_path / "X.csv", tmp_path / "y.csv")
    assert list(ds.X.index) == list(X.index)                   # X's order is kept
    assert ds.y.tolist() == ["a", "a", "b", "b"]
    np.testing.assert_array_equal(ds.X.to_numpy(), X.to_numpy())


def test_read_xy_mismatched_ids_name_both_sides(tmp_path):
    from selbayes.datasets import read_xy

    _xy_files(tmp_path)
    pd.DataFrame({"id": ["s1", "s2", "s3", "s9"], "label": ["a", "a", "b", "b"]}).to_csv(
        tmp_path / "y.csv", index=False)
    with pytest.raises(ValueError, match=r"1 only in .*X\.csv \('s4'\); 1 only in "
                                         r".*y\.csv \('s9'\)"):
        read_xy(tmp_path / "X.csv", tmp_path / "y.csv")


def test_read_xy_positional_labels_and_counts(tmp_path):
    from selbayes.datasets import read_xy

    _xy_files(tmp_path)
    pd.DataFrame({"label": ["a", "a", "b", "b"]}).to_csv(tmp_path / "y.csv", index=False)
    assert read_xy(tmp_path / "X.csv", tmp_path / "y.csv").y.tolist() == ["a", "a", "b", "b"]
    # pandas' Series.to_csv writes row numbers under an empty header: positions, not ids
    pd.Series(["a", "b", "a", "b"]).to_csv(tmp_path / "y_rows.csv")
    assert read_xy(tmp_path / "X.csv", tmp_path / "y_rows.csv").y.tolist() == list("abab")
    pd.DataFrame({"label": ["a", "a", "b"]}).to_csv(tmp_path / "y3.csv", index=False)
    with pytest.raises(ValueError, match="3 labels for the 4 samples"):
        read_xy(tmp_path / "X.csv", tmp_path / "y3.csv")


def test_read_xy_label_ids_need_ids_in_x(tmp_path):
    """A label file's ids are never paired with an id-less X by row order (the audit's silent
    mismatch); ids that are X's row numbers are matched as such, in any order."""
    from selbayes.datasets import read_xy

    _xy_files(tmp_path, x_ids=False)
    pd.DataFrame({"id": ["p1", "p2", "p3", "p4"], "extra": [1, 2, 3, 4],
                  "label": ["a", "a", "b", "b"]}).to_csv(tmp_path / "y.csv", index=False)
    with pytest.raises(ValueError, match="3 columns"):
        read_xy(tmp_path / "X.csv", tmp_path / "y.csv")
    with pytest.raises(ValueError, match=r"X\.csv has no sample ids .* \('p1', 'p2', 'p3'"):
        read_xy(tmp_path / "X.csv", tmp_path / "y.csv", label_column="label")
    # ids 0..n-1, shuffled: X's row numbers, matched by number
    pd.DataFrame({"id": [2, 0, 3, 1], "label": ["b", "a", "b", "a"]}).to_csv(
        tmp_path / "y_rows.csv", index=False)
    ds = read_xy(tmp_path / "X.csv", tmp_path / "y_rows.csv")
    assert list(ds.X.index) == ["0", "1", "2", "3"] and ds.y.tolist() == list("aabb")


def test_read_xy_ids_that_look_like_row_numbers_are_ids(tmp_path):
    """X written by pandas' to_csv over a default index has the ids "0".."n-1" in its first
    column: they are matched by name to a shuffled label file (not taken by row order)."""
    from selbayes.datasets import read_xy

    X = pd.DataFrame(np.arange(12.0).reshape(4, 3), columns=["g1", "g2", "g3"])
    X.to_csv(tmp_path / "X.csv")
    pd.DataFrame({"sample": ["3", "1", "0", "2"], "label": list("bbaa")}).to_csv(
        tmp_path / "y.csv", index=False)
    ds = read_xy(tmp_path / "X.csv", tmp_path / "y.csv")
    assert list(ds.X.index) == ["0", "1", "2", "3"] and ds.y.tolist() == list("abab")
    np.testing.assert_array_equal(ds.X.to_numpy(), X.to_numpy())


def test_read_xy_transposes_genes_by_samples_when_the_ids_say_so(tmp_path):
    """A matrix of genes x samples (a GEO series matrix's layout) whose column names are
    exactly the label file's ids is transposed, with a warning; when the ids are only among
    its columns the error says to transpose, and so does a count that equals its width."""
    from selbayes.datasets import read_xy

    X = _xy_files(tmp_path)
    X.T.rename_axis("gene").to_csv(tmp_path / "Xt.csv")
    pd.DataFrame({"id": ["s3", "s1", "s4", "s2"], "label": list("baba")}).to_csv(
        tmp_path / "y.csv", index=False)
    with pytest.warns(UserWarning, match=r"Xt\.csv: its column names are the sample ids of "
                                         r".*y\.csv, so it is read as genes x samples \(3 genes, "
                                         r"4 samples\) and transposed"):
        ds = read_xy(tmp_path / "Xt.csv", tmp_path / "y.csv")
    assert list(ds.X.index) == list(X.index) and list(ds.X.columns) == list(X.columns)
    np.testing.assert_array_equal(ds.X.to_numpy(), X.to_numpy())
    assert ds.y.tolist() == list("aabb")
    # labels of three of the four samples: no transposition, an error that names it
    pd.DataFrame({"id": ["s3", "s1", "s4"], "label": list("bab")}).to_csv(
        tmp_path / "y3.csv", index=False)
    with pytest.raises(ValueError, match=r"Xt\.csv has the sample ids of .*y3\.csv .* as its "
                                         r"column names: it is genes x samples.*transpose it"):
        read_xy(tmp_path / "Xt.csv", tmp_path / "y3.csv")
    # one column of labels, as many as Xt's columns
    pd.DataFrame({"label": list("aabb")}).to_csv(tmp_path / "y1.csv", index=False)
    X.T.iloc[:2].to_csv(tmp_path / "Xt2.csv")             # 2 genes x 4 samples
    with pytest.raises(ValueError, match=r"4 labels for the 2 samples of .*Xt2\.csv \(.*has 4 "
                                         r"columns: if its rows are genes .* transpose it"):
        read_xy(tmp_path / "Xt2.csv", tmp_path / "y1.csv")


def test_read_xy_label_file_without_a_header_row(tmp_path):
    """A label file without a header (its first label is one of the labels) keeps its first
    sample, with ids or without; when the first label is unique nothing can tell, and the
    count error says what to do."""
    from selbayes.datasets import read_xy

    _xy_files(tmp_path)
    (tmp_path / "y1.csv").write_text("0\n0\n1\n1\n")
    ds = read_xy(tmp_path / "X.csv", tmp_path / "y1.csv")
    assert ds.y.tolist() == ["0", "0", "1", "1"] and ds.y.name == "class"
    (tmp_path / "y2.csv").write_text("s3,b\ns1,a\ns4,b\ns2,a\n")
    assert read_xy(tmp_path / "X.csv", tmp_path / "y2.csv").y.tolist() == list("aabb")
    (tmp_path / "yh.csv").write_text("class\na\na\nb\nb\n")        # a real header is kept
    assert read_xy(tmp_path / "X.csv", tmp_path / "yh.csv").y.tolist() == list("aabb")
    (tmp_path / "y_odd.csv").write_text("c\na\na\nb\nb\n")           # 'c' once: ambiguous
    pd.DataFrame(np.eye(5)[:, :2], index=[f"s{i}" for i in range(5)]).to_csv(tmp_path / "X5.csv")
    with pytest.raises(ValueError, match=r"4 labels for the 5 samples .*no header row, its "
                                         r"first label was read as one"):
        read_xy(tmp_path / "X5.csv", tmp_path / "y_odd.csv")


def test_read_xy_separators_padding_and_missing_labels(tmp_path):
    """A tab-separated table saved as .csv is read as such (X: was "no gene columns"); a label
    file separated by ';' or tabs too (was every line one class of one sample); padded labels
    are one class with the unpadded; a missing label names the label file and says what to do
    (give a label, remove the sample from both files, or drop_missing='samples')."""
    from selbayes.datasets import read_xy

    X = _xy_files(tmp_path)
    X.to_csv(tmp_path / "X_tab.csv", sep="\t")
    labels = pd.DataFrame({"id": ["s3", "s1", "s4", "s2"], "label": list("baba")})
    labels.to_csv(tmp_path / "y.csv", index=False)
    ds = read_xy(tmp_path / "X_tab.csv", tmp_path / "y.csv")
    np.testing.assert_array_equal(ds.X.to_numpy(), X.to_numpy())
    for sep in (";", "\t"):
        labels.to_csv(tmp_path / "y_sep.csv", index=False, sep=sep)
        assert read_xy(tmp_path / "X.csv", tmp_path / "y_sep.csv").y.tolist() == list("aabb")
        labels[["label"]].to_csv(tmp_path / "y_sep1.csv", index=False, sep=sep)
        assert read_xy(tmp_path / "X.csv", tmp_path / "y_sep1.csv").y.tolist() == list("baba")
    (tmp_path / "y_pad.csv").write_text("id,label\ns1, a\ns2,a \ns3,b\ns4,b\n")
    ds = read_xy(tmp_path / "X.csv", tmp_path / "y_pad.csv")
    assert ds.y.tolist() == list("aabb")
    (tmp_path / "y_na.csv").write_text("id,label\ns1,a\ns2,a\ns3,\ns4,b\n")
    with pytest.raises(ValueError, match=r"y_na\.csv: 1 missing label\(s\) \(samples 's3'\); "
                                         r"give every sample a label, or remove.*both files, "
                                         r"or drop_missing='samples'"):
        read_xy(tmp_path / "X.csv", tmp_path / "y_na.csv")


def test_read_xy_drops_missing_values_only_when_asked(tmp_path):
    """read_xy's drop_missing, as read_table's: without it a missing value is an error naming
    the gene and the option; "genes" drops that gene, "samples" that sample (and one whose
    label is missing), each said in a warning and listed in Dataset.dropped; read_matrix
    returns the NaN with allow_missing=True."""
    from selbayes.datasets import read_matrix, read_xy

    X = pd.DataFrame(np.arange(18.0).reshape(6, 3), columns=["g1", "g2", "g3"],
                     index=pd.Index([f"s{i}" for i in range(1, 7)], name="sample"))
    X.loc["s2", "g3"] = np.nan
    X.to_csv(tmp_path / "X.csv")
    pd.DataFrame({"id": X.index, "label": list("aabbab")}).to_csv(tmp_path / "y.csv",
                                                                  index=False)
    with pytest.raises(ValueError, match=r"1 missing expression value\(s\) in 1 gene\(s\) "
                                         r"\('g3'\).*drop_missing='genes' or 'samples'"):
        read_xy(tmp_path / "X.csv", tmp_path / "y.csv")
    with pytest.warns(UserWarning, match="dropped 1 gene \\('g3'\\)"):
        ds = read_xy(tmp_path / "X.csv", tmp_path / "y.csv", drop_missing="genes")
    assert list(ds.X.columns) == ["g1", "g2"] and ds.dropped == {"genes": ["g3"], "samples": []}
    with pytest.warns(UserWarning, match="dropped 1 sample \\('s2'\\)"):
        ds = read_xy(tmp_path / "X.csv", tmp_path / "y.csv", drop_missing="samples")
    assert list(ds.X.index) == ["s1", "s3", "s4", "s5", "s6"]
    assert ds.y.tolist() == list("abbab")
    pd.DataFrame({"id": X.index, "label": ["a", "a", "b", None, "a", "b"]}).to_csv(
        tmp_path / "y_na.csv", index=False)
    with pytest.warns(UserWarning, match="dropped 2 samples"):
        ds = read_xy(tmp_path / "X.csv", tmp_path / "y_na.csv", drop_missing="samples")
    assert list(ds.X.index) == ["s1", "s3", "s5", "s6"] and ds.y.tolist() == list("abab")
    with pytest.raises(ValueError, match="missing label"):
        read_xy(tmp_path / "X.csv", tmp_path / "y_na.csv", drop_missing="genes")
    with pytest.raises(ValueError, match="impute or remove them first"):
        read_matrix(tmp_path / "X.csv")
    assert np.isnan(read_matrix(tmp_path / "X.csv", allow_missing=True).loc["s2", "g3"])


def test_read_xy_warns_of_a_label_column_among_the_genes(tmp_path):
    """A column of X that is the labels recoded (0/1 for a/b, or the class names' codes of
    three classes) is named in a warning; continuous genes, and a binary matrix where a gene
    can match the classes by chance, are not."""
    from selbayes.datasets import read_xy

    rng = np.random.default_rng(0)
    y = np.repeat(["a", "b", "c"], 4)
    X = pd.DataFrame(rng.normal(size=(12, 5)), columns=[f"g{j}" for j in range(5)],
                     index=pd.Index([f"s{i}" for i in range(12)], name="sample"))
    pd.DataFrame({"id": X.index, "label": y}).to_csv(tmp_path / "y.csv", index=False)
    X.assign(group=np.repeat([2.0, 7.0, 5.0], 4)).to_csv(tmp_path / "X_leak.csv")
    with pytest.warns(UserWarning, match=r"X_leak\.csv: column\(s\) 'group' hold the labels of "
                                         r".*y\.csv recoded"):
        read_xy(tmp_path / "X_leak.csv", tmp_path / "y.csv")
    X.to_csv(tmp_path / "X.csv")
    binary = (X > 0).astype(float).assign(g_match=np.repeat([0.0, 1.0, 1.0], 4))
    binary.to_csv(tmp_path / "X_bin.csv")
    pd.DataFrame({"id": X.index, "label": np.repeat(["a", "b"], 6)}).to_csv(
        tmp_path / "y2.csv", index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_xy(tmp_path / "X.csv", tmp_path / "y.csv")
        read_xy(tmp_path / "X_bin.csv", tmp_path / "y2.csv")


def test_read_xy_file_problems_are_one_sentence(tmp_path):
    from selbayes.datasets import read_matrix, read_xy

    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(ValueError, match=r"empty\.csv: the file is empty"):
        read_matrix(tmp_path / "empty.csv")
    with pytest.raises(FileNotFoundError, match="nope.csv"):
        read_xy(tmp_path / "nope.csv", tmp_path / "y.csv")
    _xy_files(tmp_path)
    pd.DataFrame({"id": ["s1", "s1", "s2", "s3"], "label": list("aabb")}).to_csv(
        tmp_path / "y.csv", index=False)
    with pytest.raises(ValueError, match="duplicated sample id"):
        read_xy(tmp_path / "X.csv", tmp_path / "y.csv")


def test_read_matrix_names_a_semicolon_separated_csv(tmp_path):
    """A spreadsheet's ';'-separated export saved as .csv read as one column: it was "lacks 300
    of the 300 features" or "no gene columns"; now the separator is named."""
    path = tmp_path / "X.csv"
    path.write_text("sample;g0;g1\ns1;0,5;1,25\ns2;0,75;2,5\n")
    with pytest.raises(ValueError, match=r"one column when read comma-separated, and its "
                                         r"header holds ';'"):
        datasets.read_matrix(path)


def test_read_table_names_duplicated_sample_ids(tmp_path):
    df = _frame()
    df.loc[3, "sample"] = "s0"
    df.to_csv(tmp_path / "t.csv", index=False)
    with pytest.raises(ValueError, match=r"1 duplicated sample id.*'sample'.*'s0'"):
        read_table(tmp_path / "t.csv", label_column="tissue")


# ---------------------------------------------------------------------------------------------
# the readers' audit: labels named like missing values, case, ids, layouts, encodings
# ---------------------------------------------------------------------------------------------
def _x_file(tmp_path, n=6, ids=None, name="X.csv"):
    rng = np.random.default_rng(1)
    ids = [f"s{i}" for i in range(n)] if ids is None else ids
    X = pd.DataFrame(rng.normal(size=(len(ids), 3)), columns=["g1", "g2", "g3"],
                     index=pd.Index(ids, name="sample"))
    X.to_csv(tmp_path / name)
    return X


def test_read_xy_none_is_a_class_and_the_markers_read_as_missing_are_named(tmp_path):
    """A class named "None" (grade None/Low/High) was read as missing (pandas' default NA
    strings): an error of missing labels, or a class silently dropped. Only empty cells and
    the markers R and spreadsheets write ("NA", "null", ...) are missing, and the message
    quotes the markers it met."""
    from selbayes.datasets import read_xy

    _x_file(tmp_path)
    ids = [f"s{i}" for i in range(6)]
    pd.DataFrame({"sample": ids, "grade": ["High", "None", "Low"] * 2}).to_csv(
        tmp_path / "y.csv", index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ds = read_xy(tmp_path / "X.csv", tmp_path / "y.csv", drop_missing="samples")
    assert ds.y.tolist() == ["High", "None", "Low"] * 2 and ds.dropped["samples"] == []
    (tmp_path / "y_na.csv").write_text("sample,grade\ns0,High\ns1,NA\ns2,Low\ns3,null\n"
                                       "s4,\ns5,High\n")
    with pytest.raises(ValueError, match=r"y_na\.csv: 3 missing label\(s\) \(samples 's1', "
                                         r"'s3', 's4'; cells 'NA', 'null' are read as "
                                         r"missing\); give every sample a label"):
        read_xy(tmp_path / "X.csv", tmp_path / "y_na.csv")
    (tmp_path / "y_empty.csv").write_text("sample,grade\ns0,a\ns1,\ns2,b\ns3,a\ns4,b\ns5,a\n")
    with pytest.raises(ValueError, match=r"1 missing label\(s\) \(samples 's1'\); give"):
        read_xy(tmp_path / "X.csv", tmp_path / "y_empty.csv")   # an empty cell: said as before
    df = ds.X.assign(grade=ds.y.to_numpy()).rename_axis("sample").reset_index()
    df.to_csv(tmp_path / "table.csv", index=False)                     # read_table alike
    assert read_table(tmp_path / "table.csv", "grade").y.tolist() == ["High", "None", "Low"] * 2


def test_read_xy_warns_of_class_names_that_differ_only_in_case(tmp_path):
    """'tumour' and ' Tumour ' were two classes, silently; now a warning names them and their
    counts (they stay two classes: the user decides)."""
    from selbayes.datasets import read_xy

    _x_file(tmp_path)
    (tmp_path / "y.csv").write_text("sample,class\ns0,tumour\ns1, Tumour \ns2,tumour\n"
                                    "s3,normal\ns4,Tumour\ns5,normal\n")
    # the reader strips the spaces (" Tumour " is "Tumour"): they differ in case alone
    with pytest.warns(UserWarning, match=r"y\.csv: class labels that differ only in case are "
                                         r"different classes: 'Tumour' "
                                         r"and 'tumour' \(2 and 2 samples\); if they are one "
                                         r"class, write them alike"):
        ds = read_xy(tmp_path / "X.csv", tmp_path / "y.csv")
    assert sorted(ds.y.unique()) == ["Tumour", "normal", "tumour"]


def test_read_matrix_keeps_zero_padded_sample_ids(tmp_path):
    """Ids 000, 001, ... were read as the numbers 0, 1, ... and no longer matched a label file
    with the same ids; numbers that are a gene are still numbers."""
    from selbayes.datasets import read_matrix, read_xy

    ids = [f"{i:03d}" for i in range(6)]
    X = _x_file(tmp_path, ids=ids)
    assert read_matrix(tmp_path / "X.csv").index.tolist() == ids
    pd.DataFrame({"sample": ids[::-1], "label": list("ababab")}).to_csv(tmp_path / "y.csv",
                                                                        index=False)
    ds = read_xy(tmp_path / "X.csv", tmp_path / "y.csv")
    assert ds.X.index.tolist() == ids and ds.y.tolist() == list("bababa")
    np.testing.assert_allclose(ds.X.to_numpy(), X.to_numpy())
    X.to_csv(tmp_path / "X_genes.csv", index=False)               # a gene first: numbers
    read = read_matrix(tmp_path / "X_genes.csv")
    assert read.columns.tolist() == ["g1", "g2", "g3"] and read.dtypes.eq(np.float64).all()
    np.testing.assert_allclose(read.to_numpy(), X.to_numpy())


def test_read_xy_names_a_label_file_of_columns_label_then_id(tmp_path):
    """class,sample was "N duplicated sample id(s): 'tumour', 'normal'"; now the message says
    the columns are swapped."""
    from selbayes.datasets import read_xy

    _x_file(tmp_path)
    pd.DataFrame({"class": ["tumour", "normal", "met"] * 2,
                  "sample": [f"s{i}" for i in range(6)]}).to_csv(tmp_path / "y.csv",
                                                                 index=False)
    with pytest.raises(ValueError, match=r"y\.csv: its first column \(class\) repeats values "
                                         r"and its second \(sample\) holds the sample ids of "
                                         r".*X\.csv: put the sample ids first \(id, label\)"):
        read_xy(tmp_path / "X.csv", tmp_path / "y.csv")


def test_read_xy_three_column_label_file_names_both_options(tmp_path):
    from selbayes.datasets import read_xy

    _x_file(tmp_path)
    pd.DataFrame({"sample": [f"s{i}" for i in range(6)], "batch": 1,
                  "label": list("ababab")}).to_csv(tmp_path / "y.csv", index=False)
    with pytest.raises(ValueError, match=r"y\.csv: 3 columns \('sample', 'batch', 'label'\); "
                                         r".*give label_column= \(on the command line "
                                         r"--label-column NAME\)"):
        read_xy(tmp_path / "X.csv", tmp_path / "y.csv")
    assert read_xy(tmp_path / "X.csv", tmp_path / "y.csv",
                   label_column="label").y.tolist() == list("ababab")


@pytest.mark.parametrize("text, cell", [
    ("sample\tG0\tG1\nS1\t1,23\t2,5\nS2\t0,5\t1,25\n", "1,23"),     # decimal comma, tabs
    ('sample,G0,G1\nS1,"12,345",1\nS2,"1,000",2\n', "12,345"),     # thousands separator
])
def test_read_matrix_quotes_a_number_with_a_decimal_comma(tmp_path, text, cell):
    path = tmp_path / "X.tsv"
    path.write_text(text)
    with pytest.raises(TypeError, match=rf"non-numeric gene column\(s\): 'G0'.* \(e\.g\. "
                                        rf"'{cell}' in gene 'G0', sample 'S1'\); numbers must "
                                        rf"use '\.' as the decimal mark and no thousands "
                                        rf"separators: convert the file"):
        datasets.read_matrix(path, sep="\t" if "\t" in text else ",")
    path.write_text("sample,G0,G1\nS1,1,abc\nS2,2,3\n")            # a word: quoted, no advice
    with pytest.raises(TypeError, match=r"'G1' \(e\.g\. 'abc' in gene 'G1', sample 'S1'\); "
                                        r"the file must be samples x genes"):
        datasets.read_matrix(path, sep=",")


def test_read_xy_drops_the_empty_column_of_a_trailing_comma(tmp_path):
    """A comma at the end of every line (a spreadsheet's export) made an empty-named column of
    missing values: "6 missing values in gene ''"; it is no data, and is dropped."""
    from selbayes.datasets import read_matrix, read_xy

    X = _x_file(tmp_path)
    lines = (tmp_path / "X.csv").read_text().splitlines()
    (tmp_path / "X_comma.csv").write_text("".join(line + ",\n" for line in lines))
    read = read_matrix(tmp_path / "X_comma.csv")
    assert read.columns.tolist() == ["g1", "g2", "g3"]
    np.testing.assert_allclose(read.to_numpy(), X.to_numpy())
    (tmp_path / "y.csv").write_text("sample,label,\n" + "".join(
        f"s{i},{'ab'[i % 2]},\n" for i in range(6)))
    ds = read_xy(tmp_path / "X_comma.csv", tmp_path / "y.csv")
    assert ds.X.shape == (6, 3) and ds.y.tolist() == list("ababab")


@pytest.mark.parametrize("encoding", ["latin-1", "utf-16"])
def test_readers_say_to_resave_a_file_that_is_not_utf8(tmp_path, encoding):
    from selbayes.datasets import read_xy

    _x_file(tmp_path)
    text = "sample,label\n" + "".join(f"s{i},{'éa'[i % 2]}\n" for i in range(6))
    (tmp_path / "y.csv").write_text(text, encoding=encoding)
    (tmp_path / "X_enc.csv").write_text((tmp_path / "X.csv").read_text().replace("g1", "gé"),
                                        encoding=encoding)
    message = (r"not a text table \(it is binary or not UTF-8\); re-save it as UTF-8 \(CSV "
               r"UTF-8 in Excel\)$")
    with pytest.raises(ValueError, match=r"y\.csv: " + message):
        read_xy(tmp_path / "X.csv", tmp_path / "y.csv")
    with pytest.raises(ValueError, match=r"X_enc\.csv: " + message):
        read_xy(tmp_path / "X_enc.csv", tmp_path / "y.csv")


def test_read_table_strips_padded_labels_and_warns_of_case_variants(tmp_path):
    """read_table reads labels as read_xy does: 'normal ' and 'normal' are one class (were
    two), and 'NORMAL' beside 'normal' is warned of (two classes; the user decides)."""
    from selbayes.datasets import read_table

    rows = ["g1,g2,class"] + [f"{i},{i % 3},{lab}" for i, lab in
                               enumerate(["normal ", "normal", " tumour", "tumour", "NORMAL",
                                          "NORMAL", "tumour", "normal"])]
    (tmp_path / "t.csv").write_text("\n".join(rows) + "\n")
    with pytest.warns(UserWarning, match=r"'NORMAL' and 'normal' \(2 and 3 samples\)"):
        ds = read_table(tmp_path / "t.csv", label_column="class")
    assert ds.y.value_counts().to_dict() == {"normal": 3, "tumour": 3, "NORMAL": 2}


@pytest.mark.parametrize("sep, quote", [(",", ""), ("\t", '"')])
def test_readers_take_r_write_table_files_whose_header_skips_the_row_names(tmp_path, sep,
                                                                           quote):
    """R's write.table writes no header cell over the row names (the sample ids), so each row
    has one field more than the header. pandas made those ids the index; read_matrix then put
    row numbers in their place, and a label file in another order than X was paired by
    position, silently: every label on the wrong sample."""
    from selbayes.datasets import read_matrix, read_table, read_xy

    X = _x_file(tmp_path)
    q = lambda s: f"{quote}{s}{quote}"  # noqa: E731
    (tmp_path / "X.txt").write_text(sep.join(q(g) for g in X.columns) + "\n" + "".join(
        sep.join([q(s)] + [str(v) for v in row]) + "\n"
        for s, row in zip(X.index, X.to_numpy(), strict=True)))
    read = read_matrix(tmp_path / "X.txt", sep=sep)
    assert read.index.tolist() == X.index.tolist() and read.columns.tolist() == ["g1", "g2",
                                                                                 "g3"]
    np.testing.assert_allclose(read.to_numpy(), X.to_numpy())
    labels = {f"s{i}": "ab"[i % 2] for i in range(6)}
    order = ["s3", "s0", "s5", "s1", "s4", "s2"]
    (tmp_path / "y.txt").write_text(q("label") + "\n" + "".join(
        f"{q(s)}{sep}{q(labels[s])}\n" for s in order))
    ds = read_xy(tmp_path / "X.txt", tmp_path / "y.txt", sep=sep)
    assert ds.y.to_dict() == labels
    (tmp_path / "t.txt").write_text(sep.join([q("g1"), q("g2"), q("label")]) + "\n" + "".join(
        sep.join([q(s), "1.5", "2", q(labels[s])]) + "\n" for s in order))
    ds = read_table(tmp_path / "t.txt", label_column="label", sep=sep)
    assert ds.y.to_dict() == labels and ds.X.columns.tolist() == ["g1", "g2"]


def test_readers_drop_a_separator_ending_the_rows_but_not_the_header(tmp_path):
    """A separator at the end of every data row but not of the header: each row had one field
    more than the header, and every column took its neighbour's name (the sample ids became
    the index and a gene 'missing' in every sample, or the genes read as labels)."""
    from selbayes.datasets import read_matrix, read_table, read_xy

    X = _x_file(tmp_path)
    lines = (tmp_path / "X.csv").read_text().splitlines()
    (tmp_path / "X_rows.csv").write_text(lines[0] + "\n" + "".join(
        line + ",\n" for line in lines[1:]))
    read = read_matrix(tmp_path / "X_rows.csv")
    assert read.index.tolist() == X.index.tolist() and read.columns.tolist() == ["g1", "g2",
                                                                                 "g3"]
    np.testing.assert_allclose(read.to_numpy(), X.to_numpy())
    (tmp_path / "y.csv").write_text("sample,label\n" + "".join(
        f"s{i},{'ab'[i % 2]},\n" for i in (5, 4, 3, 2, 1, 0)))
    ds = read_xy(tmp_path / "X_rows.csv", tmp_path / "y.csv")
    assert ds.y.tolist() == list("ababab")
    (tmp_path / "t.csv").write_text("sample,g1,label\n" + "".join(
        f"s{i},{i}.5,{'ab'[i % 2]},\n" for i in range(6)))
    ds = read_table(tmp_path / "t.csv", label_column="label")
    assert ds.X.columns.tolist() == ["g1"] and ds.y.tolist() == list("ababab")
    assert ds.X.index.tolist() == [f"s{i}" for i in range(6)]


def test_read_matrix_names_a_first_row_wider_than_the_others(tmp_path):
    """A stray field in the first data row only (a decimal comma): pandas made its first field
    the index and shifted every other row by one gene; with drop_missing="genes" the values
    were read under their neighbours' names, silently."""
    from selbayes.datasets import read_xy

    (tmp_path / "X.csv").write_text(",g1,g2,g3\ns1,1,5,2.5,3.5\ns2,1.0,2.0,3.0\ns3,4,5,6\n"
                                    "s4,7,8,9\n")
    (tmp_path / "y.csv").write_text("class\na\na\nb\nb\n")
    for kw in ({}, {"drop_missing": "genes"}):
        with pytest.raises(ValueError, match=r"X\.csv: the first data row has 5 fields, one "
                                             r"more than the header's 4, and data row 2 has 4"):
            read_xy(tmp_path / "X.csv", tmp_path / "y.csv", **kw)


# ---------------------------------------------------------------------------------------------
# the second audit: byte-order marks, id headers, layouts, empty rows, preambles, messages
# ---------------------------------------------------------------------------------------------
_Y_ROWS = b"class\na\na\nb\nb\n"
_X_IDS = b",g1,g2\ns1,5.0,1.0\ns2,6.0,1.5\ns3,1.0,2.0\ns4,2.0,2.5\n"


def test_readers_ignore_a_utf8_byte_order_mark(tmp_path):
    """Excel's "CSV UTF-8" starts the file with a byte-order mark. Read as "utf-8" it was part
    of the first header cell: an empty id header became '\\ufeff', so numeric sample ids under
    it were read as a gene (a label leak where rows are in class order) and the samples
    renumbered 0..n-1; a first gene became '\\ufeffg1', a quoted id header '\\ufeff"sample"'."""
    from selbayes.datasets import read_matrix, read_xy

    bom = b"\xef\xbb\xbf"
    (tmp_path / "X.csv").write_bytes(bom + b",g1,g2\n1,5.0,1.0\n2,6.0,1.5\n3,1.0,2.0\n"
                                           b"4,2.0,2.5\n")
    (tmp_path / "y.csv").write_bytes(_Y_ROWS)
    ds = read_xy(tmp_path / "X.csv", tmp_path / "y.csv")
    assert ds.X.index.tolist() == ["1", "2", "3", "4"] and ds.X.columns.tolist() == ["g1", "g2"]
    (tmp_path / "X_genes.csv").write_bytes(bom + b"g1,g2\n5.0,1.0\n6.0,1.5\n")
    assert read_matrix(tmp_path / "X_genes.csv").columns.tolist() == ["g1", "g2"]
    (tmp_path / "t.csv").write_bytes(bom + b'"sample",g1,class\n1,5.0,a\n2,6.0,a\n3,1.0,b\n'
                                           b"4,2.0,b\n")
    ds = read_table(tmp_path / "t.csv", label_column="class")
    assert ds.X.index.tolist() == ["1", "2", "3", "4"] and ds.X.columns.tolist() == ["g1"]
    (tmp_path / "X_ids.csv").write_bytes(_X_IDS)
    (tmp_path / "y_ids.csv").write_bytes(bom + b"sample,class\ns4,b\ns3,b\ns2,a\ns1,a\n")
    assert read_xy(tmp_path / "X_ids.csv", tmp_path / "y_ids.csv").y.tolist() == list("aabb")


def test_read_matrix_camel_case_and_other_id_headers_name_ids(tmp_path):
    """A header was split into words at non-alphanumerics only, so PatientID, SubjectID,
    CaseID and SampleNo matched no identifier word, nor did donor, code or mouse: their
    numbered samples were read as a gene, silently. camelCase now splits words; the gene
    symbol ID1 and values that are not distinct whole numbers stay a gene."""
    from selbayes.datasets import read_matrix

    rows = "".join(f"{101 + i},{5.0 + i},{1.0 - i / 2}\n" for i in range(4))
    for header in ("PatientID", "SubjectID", "CaseID", "SampleNo", "patientID", "IDNumber",
                   "donor", "Code", "mouse", "participant", "Specimen", "animal_no",
                   "patientid", "individual"):
        (tmp_path / "X.csv").write_text(f"{header},g1,g2\n" + rows)
        X = read_matrix(tmp_path / "X.csv")
        assert X.columns.tolist() == ["g1", "g2"], header
        assert X.index.tolist() == ["101", "102", "103", "104"]
    for header, values in (("ID1", "101 102 103 104"), ("PatientScore", "0.1 0.5 0.2 0.9"),
                           ("CaseID", "1 1 2 2"), ("NONO", "101 102 103 104")):
        (tmp_path / "X.csv").write_text(f"{header},g1\n" + "".join(
            f"{v},{i}.5\n" for i, v in enumerate(values.split())))
        assert read_matrix(tmp_path / "X.csv").columns.tolist() == [header, "g1"]


def test_read_xy_names_a_square_file_of_geo_accessions_as_genes_by_samples(tmp_path):
    """Genes x samples with as many genes as samples and one column of labels was read as it
    was, silently: the samples GSM1..GSM4 became the features. Column names that are all GEO
    sample accessions now say the file looks genes x samples."""
    from selbayes.datasets import read_xy

    (tmp_path / "X.csv").write_bytes(b",GSM1,GSM2,GSM3,GSM4\ng1,5,6,1,2\ng2,1,1.5,2,2.5\n"
                                     b"g3,3,4,3,4\ng4,0,1,0,1\n")
    (tmp_path / "y.csv").write_bytes(_Y_ROWS)
    with pytest.raises(ValueError, match=r"X\.csv: its column names are GEO sample accessions "
                                         r"\('GSM1', 'GSM2', 'GSM3' and 1 more\): the file looks "
                                         r"genes x samples.*transpose it"):
        read_xy(tmp_path / "X.csv", tmp_path / "y.csv")
    # with sample ids in the label file it is transposed, as before
    (tmp_path / "y_ids.csv").write_text("sample,class\nGSM1,a\nGSM2,a\nGSM3,b\nGSM4,b\n")
    with pytest.warns(UserWarning, match="read as genes x samples"):
        ds = read_xy(tmp_path / "X.csv", tmp_path / "y_ids.csv")
    assert ds.X.index.tolist() == ["GSM1", "GSM2", "GSM3", "GSM4"]


def test_read_xy_an_empty_line_in_one_column_of_labels_is_a_missing_label(tmp_path):
    """A spreadsheet's empty cell in one column of labels is an empty line, which pandas
    skipped: the labels were one short ("3 labels for the 4 samples ... add a header"), or,
    with one more label at the end, paired with the wrong samples. It is now a missing label;
    empty lines at the end of the file are nothing."""
    from selbayes.datasets import read_xy

    (tmp_path / "X.csv").write_bytes(_X_IDS)
    (tmp_path / "y.csv").write_bytes(b"class\na\n\nb\nb\n")
    with pytest.raises(ValueError, match=r"y\.csv: 1 missing label\(s\) \(samples 's2'\)"):
        read_xy(tmp_path / "X.csv", tmp_path / "y.csv")
    (tmp_path / "X6.csv").write_bytes(_X_IDS + b"s5,1.5,2.5\ns6,6.5,1.0\n")
    (tmp_path / "y6.csv").write_bytes(b"class\na\n\nb\nb\nb\na\n\n\n")
    with pytest.warns(UserWarning, match=r"dropped 1 sample \('s2'\)"):
        ds = read_xy(tmp_path / "X6.csv", tmp_path / "y6.csv", drop_missing="samples")
    assert ds.y.to_dict() == {"s1": "a", "s3": "b", "s4": "b", "s5": "b", "s6": "a"}
    (tmp_path / "y_end.csv").write_bytes(_Y_ROWS + b"\n\n")
    assert read_xy(tmp_path / "X.csv", tmp_path / "y_end.csv").y.tolist() == list("aabb")


def test_readers_drop_rows_of_separators_only(tmp_path):
    """Rows of separators only (",," rows a spreadsheet exports below the data) were samples:
    "duplicated sample id(s) in the first column: 'nan'" in X, "duplicated sample id(s): ''"
    in a label file. They hold nothing and are dropped; a row with an id is still a sample."""
    from selbayes.datasets import read_matrix, read_xy

    (tmp_path / "X.csv").write_bytes(_X_IDS + b",,\n,,\n")
    (tmp_path / "y.csv").write_bytes(_Y_ROWS)
    ds = read_xy(tmp_path / "X.csv", tmp_path / "y.csv")
    assert ds.X.index.tolist() == ["s1", "s2", "s3", "s4"] and ds.y.tolist() == list("aabb")
    (tmp_path / "X_mid.csv").write_bytes(b",g1,g2\ns1,5.0,1.0\n,,\ns2,6.0,1.5\n")
    assert read_matrix(tmp_path / "X_mid.csv").index.tolist() == ["s1", "s2"]
    (tmp_path / "y_ids.csv").write_bytes(b"sample,class\ns1,a\ns2,a\n,\ns3,b\ns4,b\n,\n")
    assert read_xy(tmp_path / "X.csv", tmp_path / "y_ids.csv").y.tolist() == list("aabb")
    (tmp_path / "t.csv").write_bytes(b"sample,g1,class\ns1,1,a\ns2,2,a\ns3,3,b\ns4,4,b\n,,\n")
    assert read_table(tmp_path / "t.csv", label_column="class").X.shape == (4, 1)
    (tmp_path / "X_gap.csv").write_bytes(b",g1,g2\ns1,5.0,1.0\ns2,,\n")     # an id: a sample
    with pytest.raises(ValueError, match=r"2 missing value\(s\).*'s2'"):
        read_matrix(tmp_path / "X_gap.csv")


def test_readers_skip_comment_and_series_matrix_lines(tmp_path):
    """Lines before the header were read as the header or as rows: a GEO series matrix
    ("!Series_..." lines, then "ID_REF" and the samples, then "!series_matrix_table_end") was
    "Expected 2 fields in line 3, saw 41"; "# ..." comment lines "no gene columns". Lines
    starting with "!" or "#" before the header, and the series matrix's last line, are
    skipped; the series matrix is then genes x samples, transposed by the label file's ids."""
    from selbayes.datasets import read_matrix, read_xy

    (tmp_path / "GSE1_series_matrix.txt").write_text(
        '!Series_title\t"A study"\n!Series_geo_accession\t"GSE1"\n\n'
        '!Sample_title\t"a1"\t"a2"\t"b1"\t"b2"\n!series_matrix_table_begin\n'
        '"ID_REF"\t"GSM11"\t"GSM12"\t"GSM13"\t"GSM14"\n"1007_s_at"\t5\t6\t1\t2\n'
        '"1053_at"\t1\t1.5\t2\t2.5\n"117_at"\t3\t4\t3\t4\n!series_matrix_table_end\n')
    (tmp_path / "y.csv").write_text("# from the series' characteristics\n"
                                    "sample,class\nGSM11,a\nGSM12,a\nGSM13,b\nGSM14,b\n")
    with pytest.warns(UserWarning, match="read as genes x samples"):
        ds = read_xy(tmp_path / "GSE1_series_matrix.txt", tmp_path / "y.csv")
    assert ds.X.index.tolist() == ["GSM11", "GSM12", "GSM13", "GSM14"]
    assert ds.X.columns.tolist() == ["1007_s_at", "1053_at", "117_at"]
    assert ds.y.tolist() == list("aabb") and ds.X.loc["GSM12", "1053_at"] == 1.5
    (tmp_path / "X.csv").write_bytes(b"# exported 2024-01-01\n# log2 RMA\n" + _X_IDS)
    assert read_matrix(tmp_path / "X.csv").shape == (4, 2)
    (tmp_path / "t.csv").write_text("# comment\nsample,g1,class\ns1,1,a\ns2,2,a\ns3,3,b\n"
                                    "s4,4,b\n")
    assert read_table(tmp_path / "t.csv", label_column="class").X.index.tolist()[0] == "s1"


def test_a_header_written_after_a_hash_is_the_header(tmp_path):
    """Some tools write the header after a "#" ("#OTU ID", "#sample,class"): skipped as a
    comment, the first sample became the header. A "#" line just before the data, as wide as
    its rows (or one field fewer), is the header without its "#"; a comment above it is not."""
    from selbayes.datasets import read_xy

    (tmp_path / "X.tsv").write_text("# normalised counts\n#OTU ID\tg1\tg2\ns1\t5.0\t1.0\n"
                                    "s2\t6.0\t1.5\ns3\t1.0\t2.0\ns4\t2.0\t2.5\n")
    (tmp_path / "y.csv").write_text("#sample,class\ns3,b\ns1,a\ns4,b\ns2,a\n")
    ds = read_xy(tmp_path / "X.tsv", tmp_path / "y.csv")
    assert ds.X.index.tolist() == ["s1", "s2", "s3", "s4"]
    assert ds.X.columns.tolist() == ["g1", "g2"] and ds.y.tolist() == list("aabb")


def test_read_xy_names_repeated_probes_of_a_genes_by_samples_file(tmp_path):
    """Genes x samples with a gene's probes in two rows and a label file of sample ids was
    "duplicated sample id(s) in the first column: 'TP53'", calling genes sample ids. Where
    the label file's ids are X's column names and not the repeated values, the message says
    the file is genes x samples: aggregate the repeated probes and transpose it."""
    from selbayes.datasets import read_matrix, read_xy

    (tmp_path / "X.csv").write_bytes(b",s1,s2,s3,s4\nTP53,5,6,1,2\nTP53,1,1.5,2,2.5\n")
    (tmp_path / "y.csv").write_text("sample,class\ns1,a\ns2,a\ns3,b\ns4,b\n")
    with pytest.raises(ValueError, match=r"X\.csv: its first column repeats 'TP53', none of "
                                         r"them a sample id of .*y\.csv, while its column names "
                                         r"are \('s1', 's2', 's3' and 1 more\): it is genes x "
                                         r"samples .*aggregate the repeated probes.*transpose"):
        read_xy(tmp_path / "X.csv", tmp_path / "y.csv")
    # without the label file (the command line reads X first) the fix is named as a
    # possibility; real duplicated sample ids keep their message
    with pytest.raises(ValueError, match=r"duplicated sample id\(s\) in the first column: "
                                         r"'TP53'; give every sample its own id, or, if the "
                                         r"file is genes x samples"):
        read_matrix(tmp_path / "X.csv")
    (tmp_path / "X_dup.csv").write_bytes(b",g1,g2\ns1,5,6\ns1,1,1.5\ns2,1,2\n")
    (tmp_path / "y_dup.csv").write_text("sample,class\ns1,a\ns2,b\n")
    with pytest.raises(ValueError, match=r"X_dup\.csv: 1 duplicated sample id\(s\) in the "
                                         r"first column: 's1'; give every sample its own id"):
        read_xy(tmp_path / "X_dup.csv", tmp_path / "y_dup.csv")


def test_read_xy_two_label_columns_say_which_was_taken_as_ids(tmp_path):
    """A label file of columns (class, age) was "2 duplicated sample id(s): 'a', 'b'": it
    did not say that its first column was taken as the ids and its second as the labels, nor
    how to pick the label column."""
    from selbayes.datasets import read_xy

    (tmp_path / "X.csv").write_bytes(_X_IDS)
    (tmp_path / "y.csv").write_text("class,age\na,50\na,61\nb,50\nb,70\n")
    with pytest.raises(ValueError, match=r"y\.csv: 2 duplicated sample id\(s\): 'a', 'b'; of "
                                         r"its two columns the first \(class\) was taken as the "
                                         r"sample ids and the second \(age\) as the labels: give "
                                         r"label_column= \(on the command line --label-column "
                                         r"NAME\) to pick the label column, e\.g\. "
                                         r"label_column='class'"):
        read_xy(tmp_path / "X.csv", tmp_path / "y.csv")
    ds = read_xy(tmp_path / "X.csv", tmp_path / "y.csv", label_column="class")
    assert ds.y.tolist() == list("aabb")


def test_read_xy_one_column_txt_label_file(tmp_path):
    """A .txt label file of one column was read by pandas' own sniffing, which split the
    header "label" at the letter "l": "duplicated sample id(s): 'a', 'b'". The separator is
    sniffed among , tab ; | and space, as for X; none in the header is one column."""
    from selbayes.datasets import read_xy

    (tmp_path / "X.csv").write_bytes(_X_IDS)
    (tmp_path / "y.txt").write_text("label\na\na\nb\nb\n")
    assert read_xy(tmp_path / "X.csv", tmp_path / "y.txt").y.tolist() == list("aabb")
    (tmp_path / "y2.txt").write_text("sample label\ns4 b\ns1 a\ns3 b\ns2 a\n")
    assert read_xy(tmp_path / "X.csv", tmp_path / "y2.txt").y.tolist() == list("aabb")


def test_read_matrix_says_what_to_do_when_the_separator_cannot_be_sniffed(tmp_path):
    from selbayes.datasets import read_matrix

    (tmp_path / "X.txt").write_text("g1\n1\n2\n")
    with pytest.raises(ValueError, match=r"X\.txt: could not infer the column separator from "
                                         r"its first line \('g1'\); save it as \.csv "
                                         r"\(comma-separated\) or \.tsv \(tab-separated\), or in "
                                         r"Python pass sep=$"):
        read_matrix(tmp_path / "X.txt")
    assert read_matrix(tmp_path / "X.txt", sep=",").columns.tolist() == ["g1"]


def test_readers_strip_ids_and_keep_names_that_look_missing(tmp_path):
    """Sample ids of X kept trailing spaces ("s1 " matched no "s1" of a label file, whose ids
    are stripped); a sample or gene named "NA" became 'nan' (names are not missing values);
    an empty id became the sample 'nan' and is now an error naming its row."""
    from selbayes.datasets import read_matrix, read_xy

    (tmp_path / "X.csv").write_text(",g1,g2\ns1 ,5.0,1.0\nNA,6.0,1.5\ns3,1.0,2.0\ns4,2.0,2.5\n")
    (tmp_path / "y.csv").write_text("sample,class\ns1,a\nNA,a\ns3,b\ns4,b\n")
    ds = read_xy(tmp_path / "X.csv", tmp_path / "y.csv")
    assert ds.X.index.tolist() == ["s1", "NA", "s3", "s4"] and ds.y.tolist() == list("aabb")
    # genes x samples: a gene named NA
    (tmp_path / "Xt.csv").write_text("gene,s1,s2,s3,s4\nNA,5,6,1,2\ng2,1,1.5,2,2.5\n")
    (tmp_path / "y_s.csv").write_text("sample,class\ns1,a\ns2,a\ns3,b\ns4,b\n")
    with pytest.warns(UserWarning, match="transposed"):
        ds = read_xy(tmp_path / "Xt.csv", tmp_path / "y_s.csv")
    assert ds.X.columns.tolist() == ["NA", "g2"]
    (tmp_path / "t.csv").write_text("sample,g1,class\ns1,1,a\nNA,2,a\ns3,3,b\ns4,4,b\n")
    assert read_table(tmp_path / "t.csv", "class").X.index.tolist() == ["s1", "NA", "s3", "s4"]
    (tmp_path / "X_gap.csv").write_text(",g1,g2\ns1,5.0,1.0\n,6.0,1.5\ns3,1.0,2.0\n")
    with pytest.raises(ValueError, match=r"X_gap\.csv: 1 sample\(s\) without a sample id in "
                                         r"the first column \(data row 2\); give every sample "
                                         r"an id"):
        read_matrix(tmp_path / "X_gap.csv")
    # a gene first: its "NA" is a missing value, as before
    (tmp_path / "X_gene.csv").write_text("g1,g2\n5.0,1.0\nNA,1.5\n")
    assert np.isnan(read_matrix(tmp_path / "X_gene.csv", allow_missing=True).iloc[1, 0])


def test_read_xy_warns_of_labels_that_mix_numbers_and_words(tmp_path):
    """0/1 labels beside a few 'normal' (two codings of one column) were three classes,
    silently; a warning names both kinds (the classes stay as written: the user decides).
    Numbers alone, or words alone, say nothing."""
    from selbayes.datasets import read_xy

    _x_file(tmp_path)
    (tmp_path / "y.csv").write_text("sample,class\ns0,0\ns1,1\ns2,0\ns3,1\ns4,normal\n"
                                    "s5,normal\n")
    with pytest.warns(UserWarning, match=r"y\.csv: class labels mix numbers \('0' and '1'\) "
                                         r"and words \('normal'\): 3 different classes"):
        ds = read_xy(tmp_path / "X.csv", tmp_path / "y.csv")
    assert sorted(ds.y.unique()) == ["0", "1", "normal"]
    for labels in ("0,1,0,1,2,2", "a,b,a,b,c,c"):
        (tmp_path / "y1.csv").write_text("sample,class\n" + "".join(
            f"s{i},{v}\n" for i, v in enumerate(labels.split(","))))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            read_xy(tmp_path / "X.csv", tmp_path / "y1.csv")


def test_read_xy_a_first_column_holding_the_label_files_ids_is_the_ids(tmp_path):
    """Numbered samples under a header that names no id ("tumour": 3, 0, 2, 1) were read as a
    gene, X's samples numbered 0..n-1 by row, and a label file keyed by the numbers paired
    with the row numbers: every label on another sample, silently. Where the column's values
    are exactly the label file's ids, they are the ids (with a warning naming the column)."""
    from selbayes.datasets import read_xy

    ids = [3, 0, 2, 1, 5, 4]
    rng = np.random.default_rng(63903)
    X = pd.DataFrame(rng.normal(size=(6, 3)), columns=["g1", "g2", "g3"],
                     index=pd.Index(ids, name="tumour"))
    X.to_csv(tmp_path / "X.csv")
    labels = {3: "a", 0: "a", 2: "b", 1: "b", 5: "a", 4: "b"}
    (tmp_path / "y.csv").write_text("tumour,label\n" + "".join(
        f"{i},{labels[i]}\n" for i in range(6)))
    with pytest.warns(UserWarning, match=r"X\.csv: its first column, 'tumour', holds the sample "
                                         r"ids of .*y\.csv: read as sample ids, not as a gene"):
        ds = read_xy(tmp_path / "X.csv", tmp_path / "y.csv")
    assert ds.X.columns.tolist() == ["g1", "g2", "g3"]
    assert ds.X.index.tolist() == [str(i) for i in ids]
    assert ds.y.tolist() == [labels[i] for i in ids]
    np.testing.assert_allclose(ds.X.to_numpy(), X.to_numpy())


def test_read_xy_a_numbered_first_column_beside_labels_in_row_order_is_warned_of(tmp_path):
    """With labels in row order (no ids to match) numbered samples under a header that names
    no id ("tumour": 1, 2, ..., the samples sorted by class) were read as a gene and selected
    first, without a word: the warning names the column and the way to make it the ids. A
    matrix of counts (every value whole) says nothing: its genes are whole numbers too."""
    from selbayes.datasets import read_xy

    rng = np.random.default_rng(63904)
    (tmp_path / "y.csv").write_text("label\n" + "a\n" * 10 + "b\n" * 10)
    for values, name, warns in ((rng.normal(size=(20, 3)), "X.csv", True),
                                (rng.poisson(40.0, size=(20, 3)), "counts.csv", False)):
        X = pd.DataFrame(values, columns=["g1", "g2", "g3"])
        X.insert(0, "tumour", np.arange(1, 21))
        X.to_csv(tmp_path / name, index=False)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ds = read_xy(tmp_path / name, tmp_path / "y.csv")
        said = [str(w.message) for w in caught if "distinct whole numbers" in str(w.message)]
        assert ds.X.columns.tolist() == ["tumour", "g1", "g2", "g3"]   # read as given
        if warns:
            assert len(said) == 1 and said[0].startswith(
                f"{tmp_path / name}: its first column, 'tumour', holds distinct whole numbers "
                "(1, 2, 3, ...)") and "name it 'sample' or 'id'" in said[0]
        else:
            assert said == []
    # named as an id, the same numbers are the ids, and nothing is said
    X.rename(columns={"tumour": "sample"}).assign(g1=rng.normal(size=20)).to_csv(
        tmp_path / "named.csv", index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ds = read_xy(tmp_path / "named.csv", tmp_path / "y.csv")
    assert ds.X.columns.tolist() == ["g1", "g2", "g3"]
    # numbers that do not number the rows (gaps: gene ids) or under ten samples (a copy
    # number 0..3): nothing is said
    for first, n in ((np.arange(20) * 7 + 3, 20), (np.arange(4), 4)):
        X = pd.DataFrame(rng.normal(size=(n, 3)), columns=["g1", "g2", "g3"])
        X.insert(0, "tumour", first)
        X.to_csv(tmp_path / "other.csv", index=False)
        (tmp_path / "y_n.csv").write_text("label\n" + "a\nb\n" * (n // 2))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            read_xy(tmp_path / "other.csv", tmp_path / "y_n.csv")


# ---------------------------------------------------------------------------------------------
# bad arguments and bad files: one error naming the argument or the file
# ---------------------------------------------------------------------------------------------
@pytest.fixture
def small_files(tmp_path):
    """A table with a label column, X and y files, and broken files beside them."""
    (tmp_path / "t.csv").write_text("sample,g1,g2,class\ns1,1,2,a\ns2,3,4,a\ns3,5,6,b\n"
                                    "s4,7,8,b\n")
    (tmp_path / "X.csv").write_text("sample,g1,g2\ns1,1,2\ns2,3,4\ns3,5,6\ns4,7,8\n")
    (tmp_path / "y.csv").write_text("sample,class\ns1,a\ns2,a\ns3,b\ns4,b\n")
    (tmp_path / "empty.csv").write_text("")
    (tmp_path / "header.csv").write_text("sample,g1,g2,class\n")
    (tmp_path / "bad.csv.gz").write_bytes(b"not gzip at all")
    (tmp_path / "folder.csv").mkdir()
    return tmp_path


@pytest.mark.parametrize("call, exc, phrase", [
    # arguments of the wrong type: pathlib's and the csv module's messages named none
    (lambda d: read_table(None, "class"), TypeError, "path must be a path"),
    (lambda d: read_table(d / "t.csv", None), TypeError, "label_column must be a str"),
    (lambda d: read_table(d / "t.csv", 3), TypeError, "label_column must be a str"),
    (lambda d: read_table(d / "t.csv", "class", index_column=0), TypeError, "index_column"),
    (lambda d: read_table(d / "t.csv", "class", sep=3), TypeError, "sep must be one character"),
    (lambda d: read_table(d / "t.csv", "class", sep=""), ValueError,
     "sep must be one character"),
    (lambda d: read_table(d / "t.csv", "class", name=3), TypeError, "name must be a str"),
    (lambda d: read_table(d / "t.csv", "class", drop_missing="gene"), ValueError,
     "drop_missing must be one of"),
    (lambda d: read_table(d / "t.csv", "class", drop_missing=0), ValueError, "drop_missing"),
    (lambda d: datasets.read_matrix(3), TypeError, "path must be a path"),
    (lambda d: datasets.read_matrix(d / "X.csv", allow_missing="yes"), TypeError,
     "allow_missing must be True or False"),
    (lambda d: datasets.read_matrix(d / "X.csv", sep=","), None, None),
    (lambda d: datasets.read_xy(None, d / "y.csv"), TypeError, "x_path must be a path"),
    (lambda d: datasets.read_xy(d / "X.csv", 3), TypeError, "y_path must be a path"),
    (lambda d: datasets.read_xy(d / "X.csv", d / "y.csv", label_column=2), TypeError,
     "label_column must be a str or None"),
    (lambda d: datasets.read_xy(d / "X.csv", d / "y.csv", drop_missing="sample"), ValueError,
     "drop_missing must be one of"),
    # a sep that splits nothing while the header holds another separator
    (lambda d: datasets.read_matrix(d / "X.csv", sep=";"), ValueError,
     r"sep=';' reads a single column, and its header holds ','"),
    (lambda d: read_table(d / "t.csv", "class", sep="\t"), ValueError,
     r"sep='\\t' reads a single column"),
    # bad files: empty ('label_column not a column; the columns start []'), a header only
    # ('non-numeric gene columns'), a .gz that is not gzip (gzip's BadGzipFile), a folder
    (lambda d: read_table(d / "empty.csv", "class"), ValueError, "the file is empty"),
    (lambda d: read_table(d / "header.csv", "class"), ValueError,
     "a header row but no samples"),
    (lambda d: read_table(d / "bad.csv.gz", "class"), ValueError,
     r"bad\.csv\.gz: not a readable \.gz file"),
    (lambda d: datasets.read_matrix(d / "bad.csv.gz"), ValueError, "not a readable .gz file"),
    (lambda d: datasets.read_xy(d / "X.csv", d / "bad.csv.gz"), ValueError,
     "not a readable .gz file"),
    (lambda d: read_table(d / "folder.csv", "class"), FileNotFoundError,
     "is a folder, not a file"),
    (lambda d: read_table(d / "missing.csv", "class"), FileNotFoundError, "does not exist"),
    # align_labels of an array or a list was an AttributeError
    (lambda d: datasets.align_labels(np.zeros((2, 2)), pd.Series(["a", "b"]), False,
                                     x_source="x", y_source="y"), TypeError,
     "X must be a pandas DataFrame"),
    (lambda d: datasets.align_labels(pd.DataFrame({"g": [1.0, 2.0]}), ["a", "b"], False,
                                     x_source="x", y_source="y"), TypeError,
     "y must be a pandas Series"),
    (lambda d: datasets.align_labels(pd.DataFrame({"g": [1.0, 2.0]}), pd.Series(["a", "b"]),
                                     "no", x_source="x", y_source="y"), TypeError,
     "has_ids must be True or False"),
])
def test_readers_name_the_bad_argument_or_file(small_files, call, exc, phrase):
    if exc is None:
        call(small_files)                # the good case beside the bad ones
        return
    with pytest.raises(exc, match=phrase):
        call(small_files)


@pytest.mark.parametrize("kwargs, adata, exc, phrase", [
    ({"genes": "g1"}, "obj", TypeError, r"genes must be a list of gene names; got the string "
                                        r"'g1' \(for one gene pass genes=\['g1'\]\)"),
    ({"dense": "no"}, "obj", TypeError, "dense must be True or False"),
    ({"drop_missing": "x"}, "obj", ValueError, "drop_missing must be one of"),
    ({"name": 3}, "obj", TypeError, "name must be a str"),
    ({}, "csv", ValueError, r"t\.csv: not an \.h5ad file"),
    ({}, "hdf5", ValueError, r"plain\.h5ad: not an \.h5ad file \(an HDF5 file but not"),
    ({}, "folder", FileNotFoundError, "adata .* is a folder, not a file"),
    ({}, 3, TypeError, "adata must be an anndata.AnnData or a path"),
])
def test_read_anndata_names_the_bad_argument_or_file(small_files, kwargs, adata, exc, phrase):
    anndata = pytest.importorskip("anndata")
    if adata == "obj":
        adata = anndata.AnnData(X=np.arange(8.0).reshape(4, 2),
                                obs=pd.DataFrame({"c": list("aabb")}, index=list("wxyz")))
        adata.var_names = ["g1", "g2"]
    elif adata == "csv":
        adata = small_files / "t.csv"
    elif adata == "hdf5":
        h5py = pytest.importorskip("h5py")
        adata = small_files / "plain.h5ad"
        with h5py.File(adata, "w") as f:
            f["x"] = np.arange(3)
    elif adata == "folder":
        adata = small_files / "folder.csv"
    with pytest.raises(exc, match=phrase), warnings.catch_warnings():
        warnings.simplefilter("ignore")          # anndata's OldFormatWarning on plain HDF5
        read_anndata(adata, "c", **kwargs)


def test_dataset_refuses_arrays_and_mismatched_labels():
    from selbayes.datasets import Dataset

    X = pd.DataFrame({"g": [1.0, 2.0]})
    with pytest.raises(TypeError, match="X must be a pandas DataFrame"):
        Dataset(X=X.to_numpy(), y=pd.Series(["a", "b"]))
    with pytest.raises(TypeError, match="y must be a pandas Series"):
        Dataset(X=X, y=["a", "b"])
    with pytest.raises(ValueError, match="y has 3 labels but X has 2 rows"):
        Dataset(X=X, y=pd.Series(["a", "b", "a"]))
    # what the readers refuse: a missing label (numpy's "'<' not supported" in classes and
    # the benchmark) and repeated sample ids
    X4 = pd.DataFrame({"g": [1.0, 2.0, 3.0, 4.0]}, index=["s0", "s1", "s2", "s3"])
    for label in (None, np.nan, " "):
        with pytest.raises(ValueError, match=r"mine: 1 missing label\(s\) \(samples 's1'\); "
                                             r"give every sample a label"):
            Dataset(X=X4, y=pd.Series(["a", label, "b", "b"], index=X4.index), name="mine")
    with pytest.raises(ValueError, match=r"1 duplicated sample id\(s\) in X's index \('s0'\)"):
        Dataset(X=X4.set_axis(["s0", "s0", "s2", "s3"]), y=pd.Series(list("aabb")))
