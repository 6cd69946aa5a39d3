module @empty {
}
