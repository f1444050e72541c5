using EtwSerializerProfiler.Analyzer.Input;

namespace EtwSerializerProfiler.Tests.Analyzer.Input;

/// <summary>
/// A failed write of the .etlx (disk full) is told from a damaged trace by the System.IO frame that threw, read
/// through DiagnosticMethodInfo so the native esp tells them apart too. /dev/full fails every write with ENOSPC: a
/// real write failure from the framework's own code.
/// </summary>
public sealed class EtlxWriteFailureTests
{
    [Fact]
    public void A_full_disk_is_a_write_failure()
    {
        Assert.True(File.Exists("/dev/full"), "this test writes to /dev/full (Linux)");
        var ex = Assert.ThrowsAny<IOException>(() =>
        {
            using var full = new FileStream("/dev/full", FileMode.Open, FileAccess.Write, FileShare.ReadWrite, bufferSize: 1);
            full.Write(new byte[4096]);
            full.Flush();
        });
        Assert.True(EtlxCache.IsWriteFailure(ex), ex.ToString());
    }

    [Fact]
    public void A_failed_read_or_a_thrown_io_exception_is_not()
    {
        var missing = Assert.ThrowsAny<IOException>(() => File.ReadAllBytes(Path.Combine(Path.GetTempPath(), $"missing-{Guid.NewGuid():N}")));
        Assert.False(EtlxCache.IsWriteFailure(missing));
        Assert.False(EtlxCache.IsWriteFailure(new IOException("not thrown")));
    }

    /// <summary>
    /// No space left is a write failure wherever it is raised: CI met it from opening TraceEvent's .tmp.new on a full
    /// tmpfs (DiskFullTests, 4 MB), with no Write frame on the stack, and the cut trace was called corrupt.
    /// </summary>
    [Fact]
    public void No_space_left_is_a_write_failure_from_any_call()
    {
        Assert.True(EtlxCache.IsWriteFailure(new IOException("No space left on device : '/t/trace.nettrace.etlx.1-a.tmp.new'", 28)));
        Assert.True(EtlxCache.IsWriteFailure(new IOException("There is not enough space on the disk.", unchecked((int)0x80070070))));
    }
}
