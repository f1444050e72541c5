namespace EtwSerializerProfiler.Benchmark.Data;

public enum DataKind
{
    /// <summary>BookShelf: a list of small books (the seeds' default).</summary>
    BookShelf,
    /// <summary>LargeRecordList: ~20 members per object.</summary>
    Large,
    /// <summary>SharedStringShelf: all books share one long title instance.</summary>
    SharedStrings,
}
