using System.Buffers.Binary;

namespace EtwSerializerProfiler.Analyzer.Symbols;

/// <summary>What perf needs to know of a file in a symbol folder: the build id it is filed under, and whether it has symbols.</summary>
public sealed record ElfDebugFile(string Path, string BuildId, bool HasSymbols);

/// <summary>
/// Reads an ELF file's GNU build id (the NT_GNU_BUILD_ID note perf files modules and debug files under) and whether it
/// has a symbol table. Debug files split off with `objcopy --only-keep-debug`, `dotnet-symbol`'s `.dbg` files and
/// unstripped libraries all carry both; a stripped library has the build id and no table. Anything that is not a
/// well-formed ELF file is null, never an exception: a symbol folder may hold anything.
/// </summary>
internal static class ElfBuildId
{
    private const uint ShtSymtab = 2;
    private const uint ShtNote = 7;
    private const uint NtGnuBuildId = 3;
    /// <summary>No real note section is this large; a bigger one is a damaged header, not worth reading.</summary>
    private const long MaxNoteBytes = 1 << 16;

    public static ElfDebugFile? Read(string path)
    {
        try
        {
            using var file = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.Read, 4096, FileOptions.RandomAccess);
            return Read(file, path);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException) { return null; }
    }

    public static ElfDebugFile? Read(Stream file, string path)
    {
        var ident = new byte[64];
        if (!ReadAt(file, 0, ident)) return null;
        if (ident[0] != 0x7f || ident[1] != (byte)'E' || ident[2] != (byte)'L' || ident[3] != (byte)'F') return null;
        var elf = new Layout(ident[4] == 2, ident[5] == 2);
        if (ident[4] is not (1 or 2) || ident[5] is not (1 or 2)) return null;
        var sectionsAt = elf.Is64 ? elf.U64(ident, 0x28) : elf.U32(ident, 0x20);
        var entrySize = elf.U16(ident, elf.Is64 ? 0x3A : 0x2E);
        var count = elf.U16(ident, elf.Is64 ? 0x3C : 0x30);
        if (sectionsAt == 0 || count == 0 || entrySize < (elf.Is64 ? 64 : 40)) return null;
        string? buildId = null;
        var symbols = false;
        var header = new byte[entrySize];
        for (var i = 0; i < count; i++)
        {
            if (!ReadAt(file, (long)sectionsAt + (long)i * entrySize, header)) return null;
            var type = elf.U32(header, 4);
            var offset = elf.Is64 ? elf.U64(header, 0x18) : elf.U32(header, 0x10);
            var size = elf.Is64 ? elf.U64(header, 0x20) : elf.U32(header, 0x14);
            if (type == ShtSymtab && size > 0) symbols = true;
            else if (type == ShtNote && buildId is null && size is > 0 and <= MaxNoteBytes)
            {
                var notes = new byte[(int)size];
                if (ReadAt(file, (long)offset, notes)) buildId = BuildIdNote(elf, notes);
            }
        }
        return buildId is null ? null : new ElfDebugFile(path, buildId, symbols);
    }

    /// <summary>The notes of one section: namesz, descsz, type, then the name and the descriptor, each padded to 4 bytes.</summary>
    private static string? BuildIdNote(Layout elf, byte[] notes)
    {
        var at = 0L;
        while (at + 12 <= notes.Length)
        {
            var nameSize = elf.U32(notes, (int)at);
            var descSize = elf.U32(notes, (int)at + 4);
            var type = elf.U32(notes, (int)at + 8);
            var name = at + 12;
            var desc = name + Align4(nameSize);
            if (desc + descSize > notes.Length) return null;
            if (type == NtGnuBuildId && nameSize == 4 && notes[name] == 'G' && notes[name + 1] == 'N' && notes[name + 2] == 'U' && descSize is > 0 and <= 64)
                return Convert.ToHexStringLower(notes, (int)desc, (int)descSize);
            at = desc + Align4(descSize);
        }
        return null;
    }

    private static long Align4(ulong n) => (long)((n + 3) & ~3UL);

    private static bool ReadAt(Stream file, long offset, byte[] buffer)
    {
        if (offset < 0 || offset + buffer.Length > file.Length) return false;
        file.Position = offset;
        file.ReadExactly(buffer);
        return true;
    }

    private readonly record struct Layout(bool Is64, bool BigEndian)
    {
        public ushort U16(byte[] b, int at) => BigEndian ? BinaryPrimitives.ReadUInt16BigEndian(b.AsSpan(at)) : BinaryPrimitives.ReadUInt16LittleEndian(b.AsSpan(at));
        public uint U32(byte[] b, int at) => BigEndian ? BinaryPrimitives.ReadUInt32BigEndian(b.AsSpan(at)) : BinaryPrimitives.ReadUInt32LittleEndian(b.AsSpan(at));
        public ulong U64(byte[] b, int at) => BigEndian ? BinaryPrimitives.ReadUInt64BigEndian(b.AsSpan(at)) : BinaryPrimitives.ReadUInt64LittleEndian(b.AsSpan(at));
    }
}
